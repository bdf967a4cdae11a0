package dev.crifresh.common.attest;

import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link AttestationClaims} ↔ JSON exactly as docs/design.md, "The attestation and its verifier", says. Written in a fixed member order with
 * {@code iat}/{@code exp} as integer NumericDate seconds and other instants as RFC 3339 strings;
 * absent optional values are written as {@code null}. On read, unknown members are ignored, a
 * missing or mistyped {@code v, sub, node_uid, boot_id, iat, exp, verdict} is an error, and
 * {@code containerd}/{@code config} may be absent or null.
 */
public final class ClaimsJson {
    /** Largest accepted NumericDate: 9999-12-31T23:59:59Z, the end of RFC 3339's range. */
    private static final long MAX_NUMERIC_DATE = 253_402_300_799L;

    private ClaimsJson() {
    }

    /**
     * Sub-second parts of {@code iat}/{@code exp} are dropped (NumericDate seconds).
     *
     * @throws IllegalArgumentException when a required member is null, so that nothing is written
     *         that {@link #read} would reject
     */
    public static String write(AttestationClaims claims) {
        ObjectNode json = StrictJson.MAPPER.createObjectNode();
        json.put("v", claims.v());
        json.put("iss", claims.iss());
        json.put("sub", required(claims.sub(), "sub"));
        json.put("node_uid", required(claims.nodeUid(), "node_uid"));
        json.put("boot_id", required(claims.bootId(), "boot_id"));
        json.put("iat", numericDate(required(claims.iat(), "iat"), "iat"));
        json.put("exp", numericDate(required(claims.exp(), "exp"), "exp"));
        json.put("verdict", required(claims.verdict(), "verdict").wire());
        json.put("reason", claims.reason());
        json.put("proof", claims.proof() == null ? null : claims.proof().wire());
        writeContainerd(json, claims.containerd());
        writeConfig(json, claims.config());
        ObjectNode registries = json.putObject("registries");
        new TreeMap<>(claims.registries()).forEach(registries::put);
        json.put("margin_ms", claims.marginMs());
        json.put("agent", claims.agent());
        return StrictJson.write(json);
    }

    /** @throws IllegalArgumentException naming the member that is missing or wrong */
    public static AttestationClaims read(String json) {
        return readVersion1(parse(json));
    }

    /** The claims' JSON object, unread: {@link #stamp} first decides whether {@link #readVersion1} may read it. */
    static ObjectNode parse(String json) {
        if (json == null) {
            throw new IllegalArgumentException("claims: no JSON");
        }
        return StrictJson.readObject(json.getBytes(StandardCharsets.UTF_8), "claims");
    }

    /**
     * The claims version and the agent's release, read before anything else: a version this coordinator does not read
     * is refused as such, not as malformed claims it has no rules for.
     */
    static Stamp stamp(ObjectNode o) {
        JsonNode v = o.get("v");
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new IllegalArgumentException("claims: \"v\" " + (v == null ? "is missing" : "must be an integer"));
        }
        JsonNode agent = o.get("agent");
        return new Stamp(v.intValue(), agent != null && agent.isString() ? agent.stringValue() : null);
    }

    /** @param agent the agent's release, when the claims carry it as a string */
    record Stamp(int v, String agent) {
    }

    /** Claims version 1's rules (the only version so far). */
    static AttestationClaims readVersion1(ObjectNode o) {
        JsonNode v = o.get("v");
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new IllegalArgumentException("claims: \"v\" " + (v == null ? "is missing" : "must be an integer"));
        }
        String verdict = requiredString(o, "verdict", "claims");
        String proof = optionalString(o, "proof", "claims");
        return new AttestationClaims(
                v.intValue(),
                optionalString(o, "iss", "claims"),
                requiredString(o, "sub", "claims"),
                requiredString(o, "node_uid", "claims"),
                requiredString(o, "boot_id", "claims"),
                readNumericDate(o, "iat"),
                readNumericDate(o, "exp"),
                parseVerdict(verdict),
                optionalString(o, "reason", "claims"),
                proof == null ? null : parseProof(proof),
                readContainerd(o.get("containerd")),
                readConfig(o.get("config")),
                readRegistries(o.get("registries")),
                optionalLong(o, "margin_ms", "claims", 0),
                optionalString(o, "agent", "claims"));
    }

    private static Verdict parseVerdict(String wire) {
        for (Verdict verdict : Verdict.values()) {
            if (verdict.wire().equals(wire)) {
                return verdict;
            }
        }
        throw new IllegalArgumentException("claims: \"verdict\" must be fresh, stale or unknown, not " + Sentences.quote(wire));
    }

    private static Proof parseProof(String wire) {
        for (Proof proof : Proof.values()) {
            if (proof.wire().equals(wire)) {
                return proof;
            }
        }
        throw new IllegalArgumentException("claims: \"proof\" must be one of "
                + Arrays.stream(Proof.values()).map(Proof::wire).collect(Collectors.joining(", "))
                + ", not " + Sentences.quote(wire));
    }

    private static <T> T required(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException("claims: \"" + name + "\" is required but null");
        }
        return value;
    }

    private static void writeContainerd(ObjectNode json, ContainerdClaim containerd) {
        if (containerd == null) {
            json.putNull("containerd");
            return;
        }
        ObjectNode c = json.putObject("containerd");
        c.put("pid", containerd.pid());
        c.put("start_ticks", containerd.startTicks());
        c.put("clk_tck", containerd.clkTck());
        c.put("started_at", rfc3339(containerd.startedAt()));
    }

    private static void writeConfig(ObjectNode json, ConfigClaim config) {
        if (config == null) {
            json.putNull("config");
            return;
        }
        ObjectNode c = json.putObject("config");
        c.put("digest", config.digest());
        ArrayNode files = c.putArray("files");
        for (FileClaim file : config.files()) {
            ObjectNode f = files.addObject();
            f.put("path", file.path());
            f.put("mtime", rfc3339(file.mtime()));
            f.put("sha256", file.sha256());
        }
    }

    private static ContainerdClaim readContainerd(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        String where = "claims.containerd";
        if (!node.isObject()) {
            throw new IllegalArgumentException(where + " must be an object or null");
        }
        return new ContainerdClaim(
                requiredLong(node, "pid", where),
                requiredLong(node, "start_ticks", where),
                requiredLong(node, "clk_tck", where),
                readRfc3339(node, "started_at", where));
    }

    private static ConfigClaim readConfig(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        String where = "claims.config";
        if (!node.isObject()) {
            throw new IllegalArgumentException(where + " must be an object or null");
        }
        JsonNode files = node.get("files");
        List<FileClaim> list = new ArrayList<>();
        if (files != null && !files.isNull()) {
            if (!files.isArray()) {
                throw new IllegalArgumentException(where + ".files must be an array");
            }
            for (int i = 0; i < files.size(); i++) {
                JsonNode file = files.get(i);
                String fileWhere = where + ".files[" + i + "]";
                if (!file.isObject()) {
                    throw new IllegalArgumentException(fileWhere + " must be an object");
                }
                list.add(new FileClaim(
                        optionalString(file, "path", fileWhere),
                        readRfc3339(file, "mtime", fileWhere),
                        optionalString(file, "sha256", fileWhere)));
            }
        }
        return new ConfigClaim(optionalString(node, "digest", where), list);
    }

    private static Map<String, String> readRegistries(JsonNode node) {
        Map<String, String> registries = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return registries;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("claims.registries must be an object of host to fingerprint");
        }
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            if (!entry.getValue().isString()) {
                throw new IllegalArgumentException("claims.registries: the fingerprint of "
                        + Sentences.quote(entry.getKey()) + " must be a string");
            }
            registries.put(entry.getKey(), entry.getValue().stringValue());
        }
        return registries;
    }

    private static String requiredString(JsonNode o, String name, String where) {
        JsonNode value = o.get(name);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException(where + ": \"" + name + "\" is missing");
        }
        if (!value.isString()) {
            throw new IllegalArgumentException(where + ": \"" + name + "\" must be a string");
        }
        return value.stringValue();
    }

    private static String optionalString(JsonNode o, String name, String where) {
        JsonNode value = o.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new IllegalArgumentException(where + ": \"" + name + "\" must be a string or null");
        }
        return value.stringValue();
    }

    private static long requiredLong(JsonNode o, String name, String where) {
        JsonNode value = o.get(name);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException(where + ": \"" + name + "\" is missing");
        }
        return integral(value, name, where);
    }

    private static long optionalLong(JsonNode o, String name, String where, long absent) {
        JsonNode value = o.get(name);
        return value == null || value.isNull() ? absent : integral(value, name, where);
    }

    private static long integral(JsonNode value, String name, String where) {
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(where + ": \"" + name + "\" must be an integer");
        }
        return value.longValue();
    }

    private static Instant readNumericDate(JsonNode o, String name) {
        long seconds = requiredLong(o, name, "claims");
        if (seconds < 0 || seconds > MAX_NUMERIC_DATE) {
            throw new IllegalArgumentException("claims: \"" + name + "\" is out of range for a NumericDate");
        }
        return Instant.ofEpochSecond(seconds);
    }

    private static Instant readRfc3339(JsonNode o, String name, String where) {
        String text = optionalString(o, name, where);
        if (text == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(where + ": \"" + name + "\" is not an RFC 3339 date-time");
        }
    }

    private static long numericDate(Instant instant, String name) {
        long seconds = instant.getEpochSecond();
        if (seconds < 0 || seconds > MAX_NUMERIC_DATE) {
            throw new IllegalArgumentException("claims: \"" + name + "\" is out of range for a NumericDate");
        }
        return seconds;
    }

    /** {@link Instant#toString} is RFC 3339 in UTC ("Z") for every year up to 9999. */
    private static String rfc3339(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
