package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Invariants the registry parsers' fuzz tests check on any input. */
final class SecretLeaks {
    /** A secret field and its quoted value, as TOML ({@code password = "x"}) and JSON ({@code "password": "x"}) spell it. */
    private static final Pattern SECRET_VALUE = Pattern.compile(
            "(?i)[\"']?(password|auth|identitytoken)[\"']?\\s*[=:]\\s*[\"']([^\"'\\n]{4,})");

    private SecretLeaks() {
    }

    /**
     * The document with every secret value blanked out (same length, so lines and columns stay), or
     * the document itself when it has none.
     */
    static String blanked(String document) {
        StringBuilder out = new StringBuilder(document);
        Matcher m = SECRET_VALUE.matcher(document);
        while (m.find()) {
            for (int i = m.start(2); i < m.end(2); i++) {
                out.setCharAt(i, 'x');
            }
        }
        return out.toString();
    }

    /** Every value the document gives to a secret field (however malformed the rest of it is). */
    static List<String> secretValues(String document) {
        List<String> values = new ArrayList<>();
        Matcher m = SECRET_VALUE.matcher(document);
        while (m.find()) {
            values.add(m.group(2));
        }
        return values;
    }

    /**
     * A failure message repeats no secret value (parser: to parse a variant of the document); a parse result holds only credentials that the
     * document itself spells (no NUL, a host, a password that is in the text or comes from an auth field).
     */
    static void check(String document, RegistryParse result, Function<String, RegistryParse> parser) {
        if (result instanceof RegistryParse.Failed failed) {
            // A secret that the message shows only while the document holds it came from the document;
            // one that stays with the secret values blanked out is fixed text (the fuzzer finds such words).
            String blankedMessage = parser.apply(blanked(document)) instanceof RegistryParse.Failed f ? f.message() : "";
            for (String secret : secretValues(document)) {
                assertFalse(failed.message().contains(secret) && !blankedMessage.contains(secret),
                        () -> "the error repeats a secret value: " + failed.message());
            }
            return;
        }
        for (RegistryAuth auth : ((RegistryParse.Parsed) result).credentials()) {
            assertFalse(auth.host().isEmpty(), "a credential without a host");
            for (String field : List.of(auth.username(), auth.password(), auth.identityToken())) {
                assertFalse(field.indexOf('\0') >= 0, "a credential field with a NUL");
            }
            assertTrue(auth.password().isEmpty() || document.contains(auth.password())
                            || document.toLowerCase().contains("auth"),
                    "a password that the document does not hold");
        }
    }
}
