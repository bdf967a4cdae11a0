package dev.crifresh.coordinator.fence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
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
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Split-brain safety (issue 15): two coordinators against ONE mock API, each behind its own fault-injecting
 * proxy, run {@link #REPETITIONS} times per fault. Asserted on what the API and the reboot seam recorded: no
 * node rebooted twice in one boot, never more nodes unavailable than the budget, never two control planes
 * down at once, the run that lost the Lease reports {@code lease-lost} and sent no write after it ended, and
 * the run that took over finishes the job — in every repetition.
 *
 * <p>The test decides what "too slow" means, so that load alone cannot spoil a repetition: the {@link #LEASE}
 * (10 s by default) sets the Lease client's request timeout (a quarter of it), the renewals (every third) and
 * the hold (four fifths of it after a renewal was sent), so a hold ends early only when a renewal times out
 * (2.5 s) and its retry a second later is not answered within the 1.2 s left; the faults wait on the runs'
 * state (a partition lasts until {@code b} holds the Lease), not on fixed sleeps. A repetition that does not
 * run as planned is a defect, and fails. The literal variant (30 s Lease) runs with
 * {@code -Psplit-brain-literal} (see docs/internals.md).
 */
class SplitBrainTest {
    static final int REPETITIONS = Integer.getInteger("crifresh.splitbrain.repetitions", 3);
    static final Duration LEASE = Duration.ofMillis(Long.getLong("crifresh.splitbrain.lease-ms", 10_000));
    /** Long enough for anything a run waits on: a Lease to expire (three times over), the rest of a rollout. */
    private static final Duration WAIT = Duration.ofSeconds(30).plus(LEASE.multipliedBy(3));

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

    /** Every repetition must be safe and clean (the fault hit {@code a}, and {@code b} finished the job). */
    private void repeat(Fault fault) throws Exception {
        long started = System.nanoTime();
        for (int rep = 0; rep < REPETITIONS; rep++) {
            try (Harness h = new Harness()) {
                once(h, fault, rep);
            } catch (AssertionError e) {
                throw new AssertionError(fault + ", repetition " + (rep + 1) + " of " + REPETITIONS + ": " + e.getMessage(), e);
            }
        }
        System.out.println("SplitBrainTest " + fault + ": " + REPETITIONS + " repetitions safe and clean (lease " + LEASE.toMillis()
                + " ms) in " + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s");
    }

    private static CoordinatorSettings settings(String runId) {
        return Harness.fastSettings().toBuilder().runId(runId).leaseDuration(LEASE)
                .lockTimeout(WAIT).drainTimeout(WAIT).rebootTimeout(Duration.ofSeconds(15)).stallTimeout(Duration.ofSeconds(15)).build();
    }

    @SuppressWarnings("checkstyle:methodlength") // one split-brain run in order: the cluster, the fault, then every check on what both runs did
    private void once(Harness h, Fault fault, int rep) throws Exception {
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
        try (Timeline timeline = new Timeline(h.cluster)) {
            Harness.RolloutRun runA = h.run("a", settings("run-a"), aLines).rollout();
            runA.await(WAIT, "a to take the Lease", RunEvents.lockAcquired());
            Harness.RolloutRun runB = h.run("b", settings("run-b"), bLines).rollout();
            // Each wait before the fault also ends when a stops on its own: then the fault cannot hit it as planned.
            BooleanSupplier aStopped = () -> runA.events.stream().anyMatch(RunEvents.is(RunEvent.Stopping.class));
            switch (fault) {
                case LEASE_500 -> {
                    // at a different step each time: while w1 drains, after w1's reboot request, while w2 rolls
                    int reboots = rep % 3;
                    Poll.until(WAIT, reboots + " reboot(s) by a", () -> h.driver.reboots().size() >= reboots || aStopped.getAsBoolean());
                    assertNotStopped(runA, aLines, bLines);
                    h.cluster.api.faults("a").fail(Requests.leases(), 500);
                }
                case PARTITION -> {
                    int reboots = rep % 3;
                    Poll.until(WAIT, reboots + " reboot(s) by a", () -> h.driver.reboots().size() >= reboots || aStopped.getAsBoolean());
                    assertNotStopped(runA, aLines, bLines);
                    if (rep % 2 == 0) {
                        h.cluster.api.proxy("a").hang();
                    } else {
                        h.cluster.api.proxy("a").refuse();
                    }
                    // Longer than the Lease: until b has taken it (possible only once a's last renewal expired) and a
                    // has seen its hold end.
                    runB.await(WAIT, "b to take the Lease while a is cut off", RunEvents.lockAcquired());
                    runA.await(WAIT, "a to end its hold while cut off", RunEvents.lockLost());
                    // The partition ends; what a hung connection held is lost (its client gave up on it).
                    h.cluster.api.proxy("a").refuse();
                    h.cluster.api.proxy("a").pass();
                }
                case TAKEOVER_WHILE_DRAINING -> {
                    Poll.until(WAIT, drains + " draining", () -> (inPhase(h, drains, "run-a/draining") && h.cluster.refusals() > 0)
                            || aStopped.getAsBoolean());
                    assertNotStopped(runA, aLines, bLines);
                    takeOver(h);
                    runA.await(WAIT, "a to notice", RunEvents.lockLost());
                    h.cluster.server.clearExpectations();
                    h.cluster.acceptEvictions("shop", "db-0", h.evictions);
                }
                case CONTROL_PLANE_NOT_READY -> {
                    Poll.until(WAIT, drains + " draining", () -> (inPhase(h, drains, "run-a/draining") && h.cluster.refusals() > 0)
                            || aStopped.getAsBoolean());
                    assertNotStopped(runA, aLines, bLines);
                    h.cluster.setReady("cp2", false);
                    h.cluster.server.clearExpectations();
                    h.cluster.acceptEvictions("shop", "db-0", h.evictions);
                    // held back by the last-moment check: cp1's roll reports something after its drain, and no reboot request
                    Poll.until(WAIT, "cp1 held back", () -> RunEvents.after(runA.events, RunEvents.event("cp1", EventReason.DRAINED),
                            RunEvents.progressOf("cp1")) || aStopped.getAsBoolean());
                    assertFalse(runA.events.stream().anyMatch(RunEvents.event("cp1", EventReason.REBOOT_REQUESTED)), "cp1 not held back");
                    assertNotStopped(runA, aLines, bLines);
                    assertEquals(0, h.driver.rebootsOf("cp1"), "cp1 rebooted while cp2 was NotReady");
                    h.cluster.setReady("cp2", true);
                }
            }
            try {
                a = runA.report(WAIT);
            } catch (TimeoutException e) {
                throw new AssertionError("a did not end within " + WAIT + "\na: " + aLines + "\nb: " + bLines, e);
            }
            aEnded = System.nanoTime();
            if (fault == Fault.LEASE_500 || fault == Fault.PARTITION) {
                h.cluster.server.clearExpectations();
                h.cluster.acceptEvictions("shop", "db-0", h.evictions);
            }
            try {
                b = runB.report(WAIT);
            } catch (TimeoutException e) {
                throw new AssertionError("b did not finish within " + WAIT + "\na: " + aLines + "\nb: " + bLines, e);
            }
            assertSafe(h, timeline, fault);
        }
        String lines = "\na: " + aLines + "\nb: " + bLines;
        for (Report r : List.of(a, b)) {
            assertTrue(r.exitCode() == 0 || r.result() == Result.LEASE_LOST, "neither finished nor lost the Lease: " + r.toJson() + lines);
        }
        if (a.result() == Result.LEASE_LOST) {
            assertEquals(4, a.exitCode(), a.toJson());
            List<Exchange> late = h.cluster.api.dispatcher().history("a", x -> x.nanos() > aEnded && !x.method().equals("GET")
                    && !x.path().contains("/leases"));
            assertTrue(late.isEmpty(), "a wrote after its run ended: " + late);
        }
        if (fault == Fault.CONTROL_PLANE_NOT_READY) {
            assertEquals(0, a.exitCode(), "a did not finish: " + a.toJson() + lines);
        } else {
            // a cannot finish (a PodDisruptionBudget holds it until it has ended): it must have lost the Lease
            assertEquals(Result.LEASE_LOST, a.result(), a.toJson() + lines);
        }
        assertEquals(0, b.exitCode(), "b did not finish the job: " + b.toJson() + lines);
    }

    /**
     * a stopped before the fault could hit it: with a Lease this long for the load (see the class comment), a
     * defect, not the machine — its lines say why (a hold that ran out says "not renewed within its validity",
     * with the last renewal's error when one failed rather than hung).
     */
    private static void assertNotStopped(Harness.RolloutRun a, List<String> aLines, List<String> bLines) {
        assertTrue(a.events.stream().noneMatch(RunEvents.is(RunEvent.Stopping.class)),
                "a stopped before the fault was injected\na: " + aLines + "\nb: " + bLines);
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
