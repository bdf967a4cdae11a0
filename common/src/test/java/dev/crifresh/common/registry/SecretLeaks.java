package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    private static void blank(StringBuilder document, int start, int end) {
        for (int i = start; i < end; i++) {
            document.setCharAt(i, 'x');
        }
    }

    /**
     * A failure message repeats no secret value (parser: to parse a variant of the document); a parse result holds only credentials that the
     * document itself spells (no NUL, a host, a password that is in the text or comes from an auth field).
     */
    static void check(String document, RegistryParse result, Function<String, RegistryParse> parser) {
        if (result instanceof RegistryParse.Failed failed) {
            // A secret that the message shows only while the document holds it came from the document;
            // one that stays with that value blanked out is fixed text (the fuzzer finds such words: "toke"
            // in "Unknown token"). One value at a time, so that blanking another one (a NUL in it, say)
            // does not move the error somewhere else.
            Matcher m = SECRET_VALUE.matcher(document);
            while (m.find()) {
                String secret = m.group(2);
                if (!failed.message().contains(secret)) {
                    continue;
                }
                StringBuilder withoutIt = new StringBuilder(document);
                blank(withoutIt, m.start(2), m.end(2));
                String blankedMessage = parser.apply(withoutIt.toString()) instanceof RegistryParse.Failed f ? f.message() : "";
                assertTrue(blankedMessage.contains(secret), () -> "the error repeats a secret value: " + failed.message());
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
