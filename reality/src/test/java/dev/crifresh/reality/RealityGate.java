package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;

/**
 * Where the reality suite cannot run (not root, no mount namespaces, a program missing) it is skipped, and
 * says why in one line, once; on CI ({@code CI=true}) a missing prerequisite fails instead.
 */
final class RealityGate {
    private static final AtomicBoolean SAID = new AtomicBoolean();

    private RealityGate() {
    }

    static void require() {
        Optional<String> missing = Prerequisites.missing();
        if (missing.isEmpty()) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("reality suite cannot run on CI: " + missing.get());
        }
        if (SAID.compareAndSet(false, true)) {
            System.out.println("reality suite skipped: " + missing.get());
        }
        Assumptions.abort("reality suite skipped: " + missing.get());
    }
}
