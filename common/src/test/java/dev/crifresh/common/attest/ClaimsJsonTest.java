package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ClaimsJsonTest {
    private static final String MINIMAL = "{\"v\":1,\"sub\":\"worker-1\",\"node_uid\":\"uid-1111\",\"boot_id\":\"boot-aaaa\","
            + "\"iat\":1746093600,\"exp\":1746094500,\"verdict\":\"unknown\"}";

    @Test
    void writesExactNamesInAStableOrder() {
        String json = ClaimsJson.write(Claims.full(Verdict.FRESH));
        assertEquals("{\"v\":1,\"iss\":\"crifresh-agent\",\"sub\":\"worker-1\",\"node_uid\":\"uid-1111\","
                + "\"boot_id\":\"boot-aaaa\",\"iat\":1746093600,\"exp\":1746094500,\"verdict\":\"fresh\","
                + "\"reason\":\"ContainerdStartedAfterConfig\",\"proof\":\"ordering\","
                + "\"containerd\":{\"pid\":1234,\"start_ticks\":5678,\"clk_tck\":100,\"started_at\":\"2025-05-01T09:00:56.780Z\"},"
                + "\"config\":{\"digest\":\"sha256:abcd\",\"files\":["
                + "{\"path\":\"/etc/cri/containerd.toml\",\"mtime\":\"2025-05-01T09:00:01.123456789Z\",\"sha256\":\"aa11\"},"
                + "{\"path\":\"/etc/cri/conf.d/cri.toml\",\"mtime\":\"2025-05-01T09:00:01.200Z\",\"sha256\":\"bb22\"}]},"
                + "\"registries\":{\"docker.io\":\"fp-two\",\"registry.example.com\":\"fp-one\"},"
                + "\"margin_ms\":50,\"agent\":\"crifresh/0.1.0\"}", json);
    }

    @Test
    void roundTripsEveryField() {
        for (Verdict verdict : Verdict.values()) {
            AttestationClaims claims = Claims.full(verdict);
            assertEquals(claims, ClaimsJson.read(ClaimsJson.write(claims)));
        }
    }

    @Test
    void roundTripsNullsAndWritesThemExplicitly() {
        AttestationClaims claims = new AttestationClaims(1, null, "worker-1", "uid-1111", "boot-aaaa", Claims.IAT, Claims.EXP,
                Verdict.UNKNOWN, null, null, null, null, null, 0, null);
        String json = ClaimsJson.write(claims);
        assertTrue(json.contains("\"containerd\":null,\"config\":null,\"registries\":{}"), json);
        assertEquals(claims, ClaimsJson.read(json));
    }

    @Test
    void readsMinimalClaimsWithDefaults() {
        AttestationClaims claims = ClaimsJson.read(MINIMAL);
        assertEquals(Instant.ofEpochSecond(1746093600), claims.iat());
        assertEquals(Verdict.UNKNOWN, claims.verdict());
        assertNull(claims.containerd());
        assertNull(claims.config());
        assertNull(claims.proof());
        assertEquals(Map.of(), claims.registries());
        assertEquals(0, claims.marginMs());
    }

    @Test
    void ignoresUnknownFieldsAtEveryLevel() {
        String json = ClaimsJson.write(Claims.full(Verdict.STALE))
                .replace("{\"v\":1,", "{\"v\":1,\"future\":{\"nested\":[1,2]},")
                .replace("\"pid\":1234,", "\"pid\":1234,\"cgroup\":\"x\",")
                .replace("\"sha256\":\"aa11\"", "\"sha256\":\"aa11\",\"size\":42");
        assertEquals(Claims.full(Verdict.STALE), ClaimsJson.read(json));
    }

    @Test
    void acceptsRfc3339OffsetsOtherThanZ() {
        String json = ClaimsJson.write(Claims.full(Verdict.FRESH))
                .replace("\"started_at\":\"2025-05-01T09:00:56.780Z\"", "\"started_at\":\"2025-05-01T11:00:56.78+02:00\"");
        assertEquals(Instant.parse("2025-05-01T09:00:56.780Z"), ClaimsJson.read(json).containerd().startedAt());
    }

    static Stream<Arguments> badClaims() {
        return Stream.of(
                Arguments.of("not JSON", "{\"v\":", "claims is not valid JSON"),
                Arguments.of("array", "[1]", "claims is not a JSON object"),
                Arguments.of("empty", "", "claims is not a JSON object"),
                Arguments.of("trailing content", MINIMAL + " {}", "claims is not valid JSON"),
                Arguments.of("duplicate member", MINIMAL.replace("{\"v\":1,", "{\"v\":1,\"v\":2,"), "claims is not valid JSON"),
                Arguments.of("v missing", MINIMAL.replace("\"v\":1,", ""), "claims: \"v\" is missing"),
                Arguments.of("v string", MINIMAL.replace("\"v\":1", "\"v\":\"1\""), "claims: \"v\" must be an integer"),
                Arguments.of("v fraction", MINIMAL.replace("\"v\":1", "\"v\":1.0"), "claims: \"v\" must be an integer"),
                Arguments.of("sub missing", MINIMAL.replace("\"sub\":\"worker-1\",", ""), "claims: \"sub\" is missing"),
                Arguments.of("sub null", MINIMAL.replace("\"worker-1\"", "null"), "claims: \"sub\" is missing"),
                Arguments.of("sub number", MINIMAL.replace("\"worker-1\"", "7"), "claims: \"sub\" must be a string"),
                Arguments.of("node_uid missing", MINIMAL.replace("\"node_uid\":\"uid-1111\",", ""), "claims: \"node_uid\" is missing"),
                Arguments.of("boot_id missing", MINIMAL.replace("\"boot_id\":\"boot-aaaa\",", ""), "claims: \"boot_id\" is missing"),
                Arguments.of("iat missing", MINIMAL.replace("\"iat\":1746093600,", ""), "claims: \"iat\" is missing"),
                Arguments.of("iat string", MINIMAL.replace("1746093600", "\"2025-05-01T10:00:00Z\""), "claims: \"iat\" must be an integer"),
                Arguments.of("iat fraction", MINIMAL.replace("1746093600", "1746093600.5"), "claims: \"iat\" must be an integer"),
                Arguments.of("iat negative", MINIMAL.replace("1746093600", "-1"), "claims: \"iat\" is out of range for a NumericDate"),
                Arguments.of("exp missing", MINIMAL.replace(",\"exp\":1746094500", ""), "claims: \"exp\" is missing"),
                Arguments.of("exp huge", MINIMAL.replace("1746094500", "99999999999999999"), "claims: \"exp\" is out of range for a NumericDate"),
                Arguments.of("verdict missing", MINIMAL.replace(",\"verdict\":\"unknown\"", ""), "claims: \"verdict\" is missing"),
                Arguments.of("verdict other", MINIMAL.replace("\"unknown\"", "\"FRESH\""), "claims: \"verdict\" must be fresh, stale or unknown, not \"FRESH\""),
                Arguments.of("proof other", MINIMAL.replace("}", ",\"proof\":\"trust-me\"}"), "claims: \"proof\" must be one of ordering, content, socket-ordering, runtime-status, none, not \"trust-me\""),
                Arguments.of("containerd not object", MINIMAL.replace("}", ",\"containerd\":5}"), "claims.containerd must be an object or null"),
                Arguments.of("containerd pid missing", MINIMAL.replace("}", ",\"containerd\":{\"start_ticks\":1,\"clk_tck\":100}}"), "claims.containerd: \"pid\" is missing"),
                Arguments.of("started_at not RFC 3339", MINIMAL.replace("}", ",\"containerd\":{\"pid\":1,\"start_ticks\":1,\"clk_tck\":100,\"started_at\":\"yesterday\"}}"), "claims.containerd: \"started_at\" is not an RFC 3339 date-time"),
                Arguments.of("files not array", MINIMAL.replace("}", ",\"config\":{\"digest\":\"d\",\"files\":{}}}"), "claims.config.files must be an array"),
                Arguments.of("file mtime bad", MINIMAL.replace("}", ",\"config\":{\"digest\":\"d\",\"files\":[{\"path\":\"/a\",\"mtime\":\"2025-13-01T00:00:00Z\"}]}}"), "claims.config.files[0]: \"mtime\" is not an RFC 3339 date-time"),
                Arguments.of("registry fingerprint number", MINIMAL.replace("}", ",\"registries\":{\"docker.io\":1}}"), "claims.registries: the fingerprint of \"docker.io\" must be a string"),
                Arguments.of("margin fraction", MINIMAL.replace("}", ",\"margin_ms\":0.5}"), "claims: \"margin_ms\" must be an integer"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badClaims")
    void rejectsBadClaimsNamingTheProblem(String name, String json, String messageStart) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClaimsJson.read(json));
        assertTrue(e.getMessage().startsWith(messageStart), e.getMessage());
    }

    @Test
    void rejectsNullInput() {
        assertThrows(IllegalArgumentException.class, () -> ClaimsJson.read(null));
    }

    @Test
    void refusesToWriteClaimsThatReadWouldReject() {
        AttestationClaims noSub = Claims.with(Claims.full(Verdict.FRESH), null, "uid", "boot");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClaimsJson.write(noSub));
        assertEquals("claims: \"sub\" is required but null", e.getMessage());
        AttestationClaims noVerdict = new AttestationClaims(1, null, "w", "u", "b", Claims.IAT, Claims.EXP, null, null,
                Proof.NONE, null, null, null, 0, null);
        assertThrows(IllegalArgumentException.class, () -> ClaimsJson.write(noVerdict));
    }

    @Test
    void dropsSubSecondPartsOfNumericDates() {
        AttestationClaims claims = Claims.times(Claims.full(Verdict.FRESH), Claims.IAT.plusMillis(999), Claims.EXP);
        assertEquals(Claims.IAT, ClaimsJson.read(ClaimsJson.write(claims)).iat());
    }
}
