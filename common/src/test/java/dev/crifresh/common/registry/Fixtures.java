package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Test fixtures (real-format config files under src/test/resources) and result assertions. */
final class Fixtures {
    private Fixtures() {
    }

    static String read(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing fixture " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<RegistryAuth> parsed(RegistryParse result) {
        if (result instanceof RegistryParse.Failed failed) {
            fail("expected Parsed, got Failed: " + failed.message());
        }
        return ((RegistryParse.Parsed) result).credentials();
    }

    /** The failure message, after checking it repeats none of the given secret values. */
    static String failedWithout(RegistryParse result, String... secrets) {
        RegistryParse.Failed failed = assertInstanceOf(RegistryParse.Failed.class, result,
                () -> "expected Failed, got " + result);
        for (String secret : secrets) {
            assertFalse(failed.message().contains(secret),
                    () -> "message repeats a secret: " + failed.message());
        }
        return failed.message();
    }
}
