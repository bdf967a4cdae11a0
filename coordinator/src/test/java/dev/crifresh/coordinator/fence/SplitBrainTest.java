package dev.crifresh.coordinator.fence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.mockapi.fault.Exchange;
import dev.crifresh.mockapi.fault.Requests;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Split-brain safety (issue 15): two coordinators against ONE mock API, each behind its own fault-injecting
 * proxy, run {@link #REPETITIONS} times per fault. Asserted on what the API and the reboot seam recorded: no
 * node rebooted twice in one boot, never more nodes unavailable than the budget, never two control planes
 * down at once, the run that lost the Lease reports {@code lease-lost} and sent no write after it ended, and
 * the run that took over finishes the job. Times are scaled down ({@link #LEASE} 1 s by default); the literal
 * variant (30 s Lease, 35 s partition) runs with {@code -Psplit-brain-literal} (see docs/coordinator.md).
 */
class SplitBrainTest {
    static final int REPETITIONS = Integer.getInteger("crifresh.splitbrain.repetitions", 3);
    static final Duration LEASE = Duration.ofMillis(Long.getLong("crifresh.splitbrain.lease-ms", 4000));
    static final Duration PARTITION = Duration.ofMillis(Long.getLong("crifresh.splitbrain.partition-ms", 2 * LEASE.toMillis()));
    private static final Duration WAIT = Duration.ofSeconds(30).plus(PARTITION).plus(LEASE.multipliedBy(3));

    private enum Fault { LEASE_500, PARTITION, TAKEOVER_WHILE_DRAINING, CONTROL_PLANE_NOT_READY }

    @Test
    void leaseCallsAnswered500() throws Exception {
        repeat(Fault.LEASE_500);
    }

    @Test
    void aPartitionLongerThanTheLease() throws Exception {
        repeat(Fault.PARTITION);
    }

    @Test
    void aTakeoverWhileTheNextNodeDrains() throws Exception {
        repeat(Fault.TAKEOVER_WHILE_DRAINING);
    }

    @Test
    void aControlPlaneGoingNotReadyWhileAnotherDrains() throws Exception {
        repeat(Fault.CONTROL_PLANE_NOT_READY);
    }

    /**
     * Safety is asserted in every repetition. Liveness — the fault hit {@code a} and {@code b} finished the job —
     * can be spoiled by an overloaded machine (a Lease call slower than a quarter of the Lease ends a hold early,
     * which is the fence doing its job): such repetitions are counted, and at least half must be clean.
     */
    private void repeat(Fault fault) throws Exception {
        int clean = 0;
        for (int rep = 0; rep < REPETITIONS; rep++) {
            try (Harness h = new Harness()) {
                if (once(h, fault, rep)) {
                    clean++;
                }
            } catch (AssertionError e) {
                throw new AssertionError(fault + ", repetition " + (rep + 1) + " of " + REPETITIONS + ": " + e.getMessage(), e);
            }
        }
        System.out.println("SplitBrainTest " + fault + ": " + REPETITIONS + " repetitions safe, " + clean + " clean (lease "
                + LEASE.toMillis() + " ms, partition " + PARTITION.toMillis() + " ms)");
        assertTrue(clean * 2 >= REPETITIONS, fault + ": only " + clean + " of " + REPETITIONS
                + " repetitions ran as planned (a Lease lost to load, not to the fault); the machine is too loaded to tell");
    }

    private static CoordinatorSettings settings(String runId) {
        return Harness.fastSettings().withRunId(runId).withLeaseDuration(LEASE)
                .withLockTimeout(WAIT).withDrainTimeout(WAIT).withRebootTimeout(Duration.ofSeconds(15));
    }

    /** @return whether the repetition ran as planned (else only safety was asserted) */
    private boolean once(Harness h, Fault fault, int rep) throws Exception {
        boolean controlPlanesOnly = fault == Fault.CONTROL_PLANE_NOT_READY;
        if (!controlPlanesOnly) {
            h.worker("w1", Verdict.STALE);
            h.worker("w2", Verdict.STALE);
        }
        h.controlPlane("cp1", Verdict.STALE);
        h.controlPlane("cp2", Verdict.STALE);
        h.controlPlane("cp3", controlPlanesOnly ? Verdict.STALE : Verdict.FRESH);
        // A pod whose eviction a PodDisruptionBudget refuses until the test lets it go: a cannot finish before the
        // fault has hit it (its hold stays valid for most of a Lease duration after its last renewal).
        String drains = fault == Fault.TAKEOVER_WHILE_DRAINING ? "w2" : "cp1";
        h.cluster.addPod("shop", "db-0", drains);
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        List<String> aLines = new CopyOnWriteArrayList<>();
        List<String> bLines = new CopyOnWriteArrayList<>();
        Report a;
        Report b;
        long aEnded;
        boolean planned = true;
        try (Timeline timeline = new Timeline(h.cluster)) {
            Harness.Run runA = h.run("a", settings("run-a"), aLines).rollout();
            Poll.until(WAIT, "a to take the Lease", () -> aLines.stream().anyMatch(l -> l.startsWith("rollout lock acquired")));
            Harness.Run runB = h.run("b", settings("run-b"), bLines).rollout();
            java.util.function.BooleanSupplier aEndedEarly = () -> aLines.stream().anyMatch(l -> l.startsWith("stopping: "));
            switch (fault) {
                case LEASE_500 -> {
                    // at a different step each time: while w1 drains, after w1's reboot request, while w2 rolls
                    int reboots = rep % 3;
                    Poll.until(WAIT, reboots + " reboot(s) by a", () -> h.driver.reboots().size() >= reboots || aEndedEarly.getAsBoolean());
                    planned = !aEndedEarly.getAsBoolean();
                    h.cluster.api.faults("a").fail(Requests.leases(), 500);
                }
                case PARTITION -> {
                    int reboots = rep % 3;
                    Poll.until(WAIT, reboots + " reboot(s) by a", () -> h.driver.reboots().size() >= reboots || aEndedEarly.getAsBoolean());
                    planned = !aEndedEarly.getAsBoolean();
                    if (rep % 2 == 0) {
                        h.cluster.api.proxy("a").hang();
                    } else {
                        h.cluster.api.proxy("a").refuse();
                    }
                    Thread.sleep(PARTITION.toMillis());
                    // The partition ends; what a hung connection held is lost (its client gave up on it).
                    h.cluster.api.proxy("a").refuse();
                    h.cluster.api.proxy("a").pass();
                }
                case TAKEOVER_WHILE_DRAINING -> {
                    Poll.until(WAIT, drains + " draining", () -> (inPhase(h, drains, "run-a/draining") && h.cluster.refusals() > 0)
                            || aEndedEarly.getAsBoolean());
                    planned = !aEndedEarly.getAsBoolean();
                    takeOver(h);
                    Poll.until(WAIT, "a to notice", () -> aLines.stream().anyMatch(l -> l.contains("lost the rollout lock")));
                    h.cluster.server.clearExpectations();
                    h.cluster.acceptEvictions("shop", "db-0", h.evictions);
                }
                case CONTROL_PLANE_NOT_READY -> {
                    Poll.until(WAIT, drains + " draining", () -> (inPhase(h, drains, "run-a/draining") && h.cluster.refusals() > 0)
                            || aEndedEarly.getAsBoolean());
                    planned = !aEndedEarly.getAsBoolean();
                    h.cluster.setReady("cp2", false);
                    h.cluster.server.clearExpectations();
                    h.cluster.acceptEvictions("shop", "db-0", h.evictions);
                    if (planned) {
                        Poll.until(WAIT, "cp1 held back", () -> aLines.stream().anyMatch(l -> l.contains("cp1 drained, but not rebooted yet"))
                                || aEndedEarly.getAsBoolean());
                        assertEquals(0, h.driver.rebootsOf("cp1"), "cp1 rebooted while cp2 was NotReady");
                    } else {
                        Thread.sleep(LEASE.toMillis());
                    }
                    h.cluster.setReady("cp2", true);
                }
            }
            a = runA.report(WAIT);
            aEnded = System.nanoTime();
            if (fault == Fault.LEASE_500 || fault == Fault.PARTITION) {
                h.cluster.server.clearExpectations();
                h.cluster.acceptEvictions("shop", "db-0", h.evictions);
            }
            try {
                b = runB.report(WAIT);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("b did not finish within " + WAIT + "\na: " + aLines + "\nb: " + bLines, e);
            }
            assertSafe(h, timeline, fault);
        }
        for (Report r : List.of(a, b)) {
            assertTrue(r.exitCode() == 0 || r.result() == Result.LEASE_LOST, "neither finished nor lost the Lease: " + r.toJson()
                    + "\na: " + aLines + "\nb: " + bLines);
        }
        if (a.result() == Result.LEASE_LOST) {
            assertEquals(4, a.exitCode(), a.toJson());
            List<Exchange> late = h.cluster.api.dispatcher().history("a", x -> x.nanos() > aEnded && !x.method().equals("GET")
                    && !x.path().contains("/leases"));
            assertTrue(late.isEmpty(), "a wrote after its run ended: " + late);
        }
        if (fault == Fault.CONTROL_PLANE_NOT_READY) {
            return planned && a.exitCode() == 0 && b.exitCode() == 0;
        }
        // a cannot finish (a PodDisruptionBudget holds it until it has ended): it must have lost the Lease
        assertEquals(Result.LEASE_LOST, a.result(), a.toJson());
        return planned && b.exitCode() == 0;
    }

    /** The safety properties, on what the API server and the reboot seam recorded. */
    private static void assertSafe(Harness h, Timeline timeline, Fault fault) {
        List<String> boots = h.driver.rebootedBoots();
        assertEquals(new HashSet<>(boots).size(), boots.size(), "a node was rebooted twice in one boot: " + boots);
        for (Timeline.Event e : timeline.events()) {
            Set<String> down = new HashSet<>();
            Set<String> unavailableCps = new HashSet<>();
            for (String n : e.unavailableAfter()) {
                if (n.startsWith("cp")) {
                    unavailableCps.add(n);
                }
            }
            if (fault != Fault.CONTROL_PLANE_NOT_READY) {
                // budget 1: the test itself takes nothing down
                assertTrue(e.unavailableAfter().size() <= 1, "over the budget of 1: " + e.unavailableAfter() + " in " + timeline.events());
                assertTrue(unavailableCps.size() <= 1, "two control planes unavailable: " + unavailableCps);
            }
            down.addAll(notReady(timeline, e));
            assertTrue(down.stream().filter(n -> n.startsWith("cp")).count() <= 1, "two control planes down: " + down);
        }
    }

    /** The nodes NotReady after an event, replayed from the timeline. */
    private static Set<String> notReady(Timeline timeline, Timeline.Event upTo) {
        Set<String> out = new HashSet<>();
        for (Timeline.Event e : timeline.events()) {
            if (e.ready()) {
                out.remove(e.node());
            } else {
                out.add(e.node());
            }
            if (e == upTo) {
                break;
            }
        }
        return out;
    }

    private static boolean inPhase(Harness h, String node, String value) {
        Node n = h.cluster.node(node);
        return n.getMetadata().getAnnotations() != null && value.equals(n.getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
    }

    /** An operator takes the Lease over (holder "takeover", expiring after one Lease duration). */
    private static void takeOver(Harness h) {
        var leases = h.cluster.test.leases().inNamespace("crifresh");
        Poll.until(WAIT, "the takeover", () -> {
            Lease taken = new LeaseBuilder(leases.withName("crifresh-rollout").get()).editSpec().withHolderIdentity("takeover")
                    .withLeaseDurationSeconds((int) Math.max(1, LEASE.toSeconds())).withRenewTime(ZonedDateTime.now()).endSpec().build();
            try {
                leases.resource(taken).update();
                return true;
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    return false; // renewed between our read and write: read again
                }
                throw e;
            }
        });
    }
}
