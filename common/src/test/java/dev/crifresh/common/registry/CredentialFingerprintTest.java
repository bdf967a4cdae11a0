package dev.crifresh.common.registry;

import static dev.crifresh.common.registry.Fixtures.parsed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class CredentialFingerprintTest {
    /** Bytes 0x00..0x1f. */
    private static final byte[] KEY = counting(32, 0);
    private static final RegistryAuth GHCR = new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "");

    private static byte[] counting(int length, int start) {
        byte[] key = new byte[length];
        for (int i = 0; i < length; i++) {
            key[i] = (byte) (start + i);
        }
        return key;
    }

    @Test
    void knownAnswerComputedIndependentlyOverTheExactByteString() throws Exception {
        ByteArrayOutputStream input = new ByteArrayOutputStream();
        for (String part : new String[] {"crifresh-cred-v1", "ghcr.io", "deploy-bot", "token-v2"}) {
            input.writeBytes(part.getBytes(StandardCharsets.UTF_8));
            input.write(0);
        }
        // identitytoken is empty: the input ends with the NUL after the password.
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        String expected = Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(input.toByteArray()))
                .substring(0, 22);

        assertEquals(expected, CredentialFingerprint.of(KEY, GHCR));
    }

    @Test
    void knownAnswerFromOpenssl() {
        // printf 'crifresh-cred-v1\0ghcr.io\0deploy-bot\0token-v2\0' \
        //   | openssl dgst -sha256 -mac HMAC -macopt hexkey:000102…1e1f -binary | base64 | tr '+/' '-_' | cut -c1-22
        assertEquals("hVlzygkCTcZiAlfUT5tCZc", CredentialFingerprint.of(KEY, GHCR));
    }

    @Test
    void knownAnswerWithNonAsciiAndAnIdentityToken() throws Exception {
        RegistryAuth auth = new RegistryAuth("registry.local:5000", "jürgen", "pässwört", "tök");
        byte[] input = "crifresh-cred-v1\u0000registry.local:5000\u0000jürgen\u0000pässwört\u0000tök"
                .getBytes(StandardCharsets.UTF_8);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        String expected = Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(input)).substring(0, 22);
        assertEquals(expected, CredentialFingerprint.of(KEY, auth));
    }

    @Test
    void isStableAndShapedForPublishing() {
        String first = CredentialFingerprint.of(KEY, GHCR);
        assertEquals(first, CredentialFingerprint.of(KEY.clone(), new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "")));
        assertEquals(22, first.length());
        assertTrue(first.matches("[A-Za-z0-9_-]{22}"), first);
    }

    static Stream<Arguments> oneFieldChanged() {
        return Stream.of(
                Arguments.of("host", new RegistryAuth("quay.io", "deploy-bot", "token-v2", "")),
                Arguments.of("username", new RegistryAuth("ghcr.io", "deploy-bot2", "token-v2", "")),
                Arguments.of("password", new RegistryAuth("ghcr.io", "deploy-bot", "token-v3", "")),
                Arguments.of("identitytoken", new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "t")),
                Arguments.of("password case", new RegistryAuth("ghcr.io", "deploy-bot", "Token-v2", "")),
                Arguments.of("port", new RegistryAuth("ghcr.io:443", "deploy-bot", "token-v2", "")),
                // field boundaries move: the separators keep these apart
                Arguments.of("user/password boundary", new RegistryAuth("ghcr.io", "deploy-bottoken-v2", "", "")),
                Arguments.of("password/token boundary", new RegistryAuth("ghcr.io", "deploy-bot", "", "token-v2")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("oneFieldChanged")
    void changesWhenAnyFieldChanges(String what, RegistryAuth changed) {
        assertNotEquals(CredentialFingerprint.of(KEY, GHCR), CredentialFingerprint.of(KEY, changed));
    }

    @Test
    void changesWithTheKey() {
        assertNotEquals(CredentialFingerprint.of(KEY, GHCR), CredentialFingerprint.of(counting(32, 1), GHCR));
    }

    @ParameterizedTest
    @ValueSource(strings = {"GHCR.IO", "https://ghcr.io/", " ghcr.io ", "http://ghcr.io/v2/"})
    void theHostIsNormalisedFirst(String spelling) {
        assertEquals(CredentialFingerprint.of(KEY, GHCR),
                CredentialFingerprint.of(KEY, new RegistryAuth(spelling, "deploy-bot", "token-v2", "")));
    }

    @Test
    void dockerHubSpellingsShareOneFingerprint() {
        RegistryAuth hub = new RegistryAuth("docker.io", "hubuser", "hub-pa55", "");
        for (String spelling : List.of("index.docker.io", "registry-1.docker.io", "https://index.docker.io/v1/")) {
            assertEquals(CredentialFingerprint.of(KEY, hub),
                    CredentialFingerprint.of(KEY, new RegistryAuth(spelling, "hubuser", "hub-pa55", "")), spelling);
        }
    }

    @Test
    void containerdTomlAndDockerConfigWithTheSameCredentialAgree() {
        List<RegistryAuth> fromTalos = parsed(CriRegistryConfig.parse(Fixtures.read("talos-01-registries.part")));
        String docker = "{\"auths\":{\"https://ghcr.io/\":{\"auth\":\""
                + Base64.getEncoder().encodeToString("deploy-bot:token-v2".getBytes(StandardCharsets.UTF_8)) + "\"}}}";
        List<RegistryAuth> fromDocker = parsed(DockerConfig.parse(docker));

        assertEquals(CredentialFingerprint.fingerprints(KEY, fromTalos), CredentialFingerprint.fingerprints(KEY, fromDocker));
        assertEquals(Map.of("ghcr.io", "hVlzygkCTcZiAlfUT5tCZc"), CredentialFingerprint.fingerprints(KEY, fromDocker));
    }

    @Test
    void aRotatedPasswordInTheDockerConfigDisagreesWithTheNode() {
        Map<String, String> node = CredentialFingerprint.fingerprints(KEY,
                parsed(CriRegistryConfig.parse(Fixtures.read("talos-merged-cri.toml"))));
        Map<String, String> desired = CredentialFingerprint.fingerprints(KEY,
                parsed(DockerConfig.parse("{\"auths\":{\"ghcr.io\":{\"username\":\"deploy-bot\",\"password\":\"token-v3\"}}}")));
        assertNotEquals(desired.get("ghcr.io"), node.get("ghcr.io"));
    }

    @Test
    void fingerprintsAreKeyedByNormalisedHostInHostOrder() {
        List<RegistryAuth> auths = List.of(
                new RegistryAuth("registry.local:5000", "a", "b", ""),
                new RegistryAuth("https://index.docker.io/v1/", "c", "d", ""),
                new RegistryAuth("GHCR.io", "deploy-bot", "token-v2", ""));
        Map<String, String> fingerprints = CredentialFingerprint.fingerprints(KEY, auths);
        assertEquals(List.of("docker.io", "ghcr.io", "registry.local:5000"), new ArrayList<>(fingerprints.keySet()));
        assertEquals(CredentialFingerprint.of(KEY, GHCR), fingerprints.get("ghcr.io"));
        assertThrows(UnsupportedOperationException.class, () -> fingerprints.put("x", "y"));
        assertEquals(Map.of(), CredentialFingerprint.fingerprints(KEY, List.of()));
    }

    @Test
    void fingerprintsRejectOneHostWithTwoCredentials() {
        List<RegistryAuth> same = List.of(GHCR, new RegistryAuth("https://ghcr.io/", "deploy-bot", "token-v2", ""));
        assertEquals(1, CredentialFingerprint.fingerprints(KEY, same).size());
        List<RegistryAuth> clash = List.of(GHCR, new RegistryAuth("https://ghcr.io/", "deploy-bot", "token-v3", ""));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CredentialFingerprint.fingerprints(KEY, clash));
        assertTrue(e.getMessage().contains("ghcr.io"), e.getMessage());
        assertFalse(e.getMessage().contains("token-v"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 16, 31})
    void rejectsAKeyShorterThan32Bytes(int length) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CredentialFingerprint.of(new byte[length], GHCR));
        assertTrue(e.getMessage().contains("32"), e.getMessage());
    }

    @Test
    void acceptsLongerKeys() {
        assertEquals(22, CredentialFingerprint.of(counting(64, 7), GHCR).length());
    }

    @Test
    void rejectsANulInsideAField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CredentialFingerprint.of(KEY, new RegistryAuth("ghcr.io", "deploy", "bot\0token-v2", "")));
        assertFalse(e.getMessage().contains("token-v2"), e.getMessage());
    }
}
