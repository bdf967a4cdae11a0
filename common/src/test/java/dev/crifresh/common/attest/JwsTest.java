package dev.crifresh.common.attest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JwsTest {
    private static final String A4 = Rfc8037Test.JWS;
    private static final String[] PARTS = A4.split("\\.");

    @Test
    void signParseVerifyRoundTrip() {
        KeyPair pair = Ed25519Keys.generate();
        byte[] payload = "{\"x\":\"ü\"}".getBytes(StandardCharsets.UTF_8);
        String compact = Jws.sign("{\"alg\":\"EdDSA\",\"kid\":\"k\"}", payload, pair.getPrivate());
        Jws.Parsed parsed = Jws.parse(compact);
        assertArrayEquals(payload, parsed.payload());
        assertEquals("k", parsed.headerString("kid"));
        assertEquals(compact.substring(0, compact.lastIndexOf('.')), parsed.signingInput());
        assertTrue(Jws.verifyEd25519(parsed, pair.getPublic()));
        assertFalse(Jws.verifyEd25519(parsed, Ed25519Keys.generate().getPublic()));
    }

    @Test
    void headerMembersKeepTheirJsonTypes() {
        String header = Base64Url.encode("{\"alg\":5,\"kid\":null,\"jwk\":{\"kty\":\"OKP\"}}".getBytes(StandardCharsets.UTF_8));
        Jws.Parsed parsed = Jws.parse(header + "." + PARTS[1] + ".");
        assertNull(parsed.headerString("alg"));
        assertEquals(5, ((Number) parsed.header().get("alg")).intValue());
        assertTrue(parsed.header().containsKey("kid"));
        assertEquals(0, parsed.signature().length);
    }

    static Stream<Arguments> malformed() {
        String json = Base64Url.encode("[\"alg\"]".getBytes(StandardCharsets.UTF_8));
        String text = Base64Url.encode("alg=EdDSA".getBytes(StandardCharsets.UTF_8));
        String duplicate = Base64Url.encode("{\"alg\":\"none\",\"alg\":\"EdDSA\"}".getBytes(StandardCharsets.UTF_8));
        return Stream.of(
                Arguments.of("two segments", PARTS[0] + "." + PARTS[1], "a compact JWS has 3 dot-separated segments, this one has 2"),
                Arguments.of("one segment", PARTS[0], "a compact JWS has 3 dot-separated segments, this one has 1"),
                Arguments.of("four segments", A4 + ".AAAA", "a compact JWS has 3 dot-separated segments, this one has 4"),
                Arguments.of("five segments (JWE)", A4 + ".AAAA.BBBB", "a compact JWS has 3 dot-separated segments, this one has 5"),
                Arguments.of("padding on the header", PARTS[0] + "=." + PARTS[1] + "." + PARTS[2], "the header segment carries base64 padding"),
                Arguments.of("padding on the signature", A4 + "==", "the signature segment carries base64 padding"),
                Arguments.of("standard base64 alphabet", PARTS[0] + "." + PARTS[1] + "." + PARTS[2].replace('_', '/'), "the signature segment contains a character outside the base64url alphabet"),
                Arguments.of("whitespace", PARTS[0] + "." + PARTS[1] + " ." + PARTS[2], "the payload segment contains a character outside"),
                Arguments.of("impossible length", PARTS[0] + "." + "A".repeat(4 * 9 + 1) + "." + PARTS[2], "the payload segment has an impossible base64url length"),
                Arguments.of("non-canonical trailing bits", PARTS[0] + "." + PARTS[1] + "." + PARTS[2].substring(0, 85) + "h", "the signature segment is not canonical base64url"),
                Arguments.of("header not JSON", text + "." + PARTS[1] + "." + PARTS[2], "the header is not valid JSON"),
                Arguments.of("header a JSON array", json + "." + PARTS[1] + "." + PARTS[2], "the header is not a JSON object"),
                Arguments.of("header empty", "." + PARTS[1] + "." + PARTS[2], "the header is not a JSON object"),
                Arguments.of("duplicate header member", duplicate + "." + PARTS[1] + "." + PARTS[2], "the header is not valid JSON"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void rejectsMalformedTokens(String name, String token, String messageStart) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Jws.parse(token));
        assertTrue(e.getMessage().startsWith(messageStart), e.getMessage());
        assertFalse(e.getMessage().contains(PARTS[2]), "never echoes the token");
    }
}
