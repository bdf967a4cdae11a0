package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

    private static final Set<String> SAID_GENERATIONS = ConcurrentHashMap.newKeySet();

    /**
     * A containerd generation the test runs on: where it cannot be had (1.7, 2.1, 2.2 and 2.3 come from
     * {@code reality/bin/fetch-containerd}) the test is skipped with one line naming what is missing, once per
     * generation; on CI that is a failure.
     */
    static void require(ContainerdGeneration generation) {
        Optional<String> missing = generation.missing();
        if (missing.isEmpty()) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("reality suite cannot run on CI: " + missing.get());
        }
        if (SAID_GENERATIONS.add(generation.name())) {
            System.out.println("reality suite skipped on " + generation + ": " + missing.get());
        }
        Assumptions.abort("skipped on " + generation + ": " + missing.get());
    }
}
