package dev.crifresh.coordinator.reliability;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static dev.crifresh.coordinator.reliability.ApiState.cordoned;
import static dev.crifresh.coordinator.reliability.ApiState.outcomes;
import static dev.crifresh.coordinator.reliability.ApiState.owned;
import static dev.crifresh.coordinator.reliability.ApiState.phase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.FreezePoint;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.mockapi.reliability.FaultRow;
import dev.crifresh.mockapi.reliability.FaultTable;
import dev.crifresh.mockapi.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The coordinator's fault-injection suite (docs/reliability.md): each case is a real rollout against the
 * mock API server with one fault injected at a named point, and asserts on the final API state (node
 * cordons, crifresh annotations, reboots the driver received) and the report — never on log text.
 * Each case returns what it observed; the suite writes the summary table (target/reliability/coordinator.md)
 * and checks that docs/reliability.md shows the same ({@link FaultTable}).
 *
 * <p>Abandonment ("SIGKILL") cases stop the coordinator dead with a {@link FreezePoint} right after a
 * step, kill it (its Lease left to expire), then start a second coordinator on the same API state.
 */
class CoordinatorFaultSuiteTest {
    interface Body {
        /** Runs the case, asserts, and returns what happened in words. */
        String run(Harness h) throws Exception;
    }

    record Case(String id, String fault, String point, Body body) {
        @Override
        public String toString() {
            return id + " " + fault + " @ " + point;
        }
    }

    private static final Duration WAIT = Duration.ofSeconds(20);
    /**
     * Pods on w2 in the cases that need w1 rolled first: with no fresh node to take evicted pods, the stale worker
     * with the fewest pods is rolled first and alone (the eviction placement's seed).
     */
    private static final List<String> W2_PODS = List.of("api-0", "api-1", "api-2");
    private static final FaultTable TABLE = new FaultTable("coordinator", (int) allCases().count());

    /**
     * {@code -Dfault.case=A3} runs one case ({@code A2,A3} several), {@code -Dfault.repeat=10} each selected case ten times, each time on a
     * new mock cluster (to show a case is not flaky); the summary table is then not written.
     */
    static Stream<Case> cases() {
        return FaultTable.selected(allCases(), Case::id);
    }

    static Stream<Case> allCases() {
        return Stream.of(
                new Case("A1", "coordinator killed", "after the ownership+cordon patch (one patch)",
                        h -> killedAndRerun(h, new FreezePoint("owned", RunEvents.event("w1", EventReason.CORDONED)), false, null)),
                new Case("A2", "coordinator killed; w1 was cordoned by someone else (--max-unavailable 2)", "after the ownership patch",
                        h -> killedAndRerun(h, new FreezePoint("owned", RunEvents.event("w1", EventReason.CORDONED)), true, null)),
                new Case("A3", "coordinator killed", "mid-drain (1 of 2 pods evicted; w1 first: fewest pods)",
                        CoordinatorFaultSuiteTest::killedMidDrain),
                new Case("A4", "coordinator killed", "right after the reboot request (node returns while no coordinator runs)",
                        h -> killedAndRerun(h, new FreezePoint("reboot requested", RunEvents.event("w1", EventReason.REBOOT_REQUESTED)), false, null)),
                new Case("A5", "coordinator killed", "while waiting for Ready (node down until the rerun waits)",
                        h -> {
                            h.driver.behave("w1", Behaviour.HOLD);
                            return killedAndRerun(h, new FreezePoint("reboot requested", RunEvents.event("w1", EventReason.REBOOT_REQUESTED)), false,
                                    () -> h.driver.bringBack("w1"));
                        }),
                new Case("A6", "coordinator killed", "while waiting for the attestation of the new boot",
                        h -> {
                            h.driver.behave("w1", Behaviour.NO_AGENT);
                            return killedAndRerun(h, new FreezePoint("back", RunEvents.event("w1", EventReason.RETURNED)), false,
                                    () -> h.agent.attest(h.cluster, "w1", Verdict.FRESH, TestAgent.DESIRED));
                        }),
                new Case("N1", "node deleted", "while draining (w1 first: fewest pods)", CoordinatorFaultSuiteTest::deletedWhileDraining),
                new Case("N2", "node deleted", "while rebooting", CoordinatorFaultSuiteTest::deletedWhileRebooting),
                new Case("N3", "node back Ready with the same boot id (reboot silently not done)", "after the reboot request",
                        CoordinatorFaultSuiteTest::backWithTheSameBootId),
                new Case("N4", "node back Ready, its agent never attests", "after the reboot",
                        CoordinatorFaultSuiteTest::neverAttests),
                new Case("N5", "control plane cp2 goes NotReady", "during the worker phase",
                        CoordinatorFaultSuiteTest::controlPlaneNotReadyDuringWorkers),
                new Case("B1", "--max-unavailable 2, one node NotReady and one cordoned by someone else", "before the run",
                        CoordinatorFaultSuiteTest::budgetUsedByOthers),
                new Case("B2", "--max-unavailable 25% on 7 stale workers", "whole run",
                        CoordinatorFaultSuiteTest::percentBudget));
    }

    /**
     * The harness' settings: a 10 s Lease, as in every other coordinator test. A 4 s one (Lease calls timing out
     * after 1 s) was lost before the fault point on a loaded build machine ("the coordinator never reached point
     * ..."), which failed the killed cases for a reason that is not their fault.
     */
    static CoordinatorSettings settings() {
        return Harness.fastSettings();
    }

    /**
     * Cases known not to pass, with why: not run, but shown in the table as NOT VERIFIED and reported — never
     * dropped silently. (A2, A3 and N1 were here until their causes were found: see docs/reliability.md.)
     */
    private static final Map<String, String> KNOWN_ISSUES = Map.of();

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void fault(Case c) throws Exception {
        String issue = KNOWN_ISSUES.get(c.id());
        if (issue != null) {
            TABLE.add(new FaultRow(c.id(), c.fault(), c.point(), "NOT VERIFIED on this build: " + issue, true));
            org.junit.jupiter.api.Assumptions.abort(issue);
        }
        try (Harness h = new Harness()) {
            String result;
            try {
                result = c.body().run(h);
            } catch (Throwable t) {
                System.err.println(c.id() + " failed; the coordinators' progress lines:\n  " + String.join("\n  ", h.progress));
                TABLE.add(new FaultRow(c.id(), c.fault(), c.point(), "FAILED: " + t.getMessage(), false));
                throw t;
            }
            TABLE.add(new FaultRow(c.id(), c.fault(), c.point(), result, true));
        }
    }

    @AfterAll
    static void writeTable() throws Exception {
        Path module = Path.of("").toAbsolutePath();
        TABLE.finish(module, module.resolve("../docs/reliability.md").normalize());
    }

    // ---- abandonment ---------------------------------------------------------------------------------

    /**
     * The rerun waits for the killed run's Lease (10 s after its last renewal) to expire.
     */
    private static CoordinatorSettings rerunSettings() {
        return settings().withLockTimeout(Duration.ofSeconds(30));
    }

    /**
     * Two stale workers; the first run is frozen at {@code point} on w1 and killed; {@code whileRerun} (if
     * any) happens once the rerun resumed w1. Asserts the promise of DESIGN §5.
     */
    private static String killedAndRerun(Harness h, FreezePoint point, boolean cordonedByOther, Runnable whileRerun)
            throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        if (cordonedByOther) {
            h.cluster.mergePatch("w1", "{\"spec\":{\"unschedulable\":true}}");
        }
        Map<String, Boolean> cordonsBefore = ApiState.cordons(h);
        // Someone else's cordon counts against the budget: 2 lets w2 roll beside it.
        String budget = cordonedByOther ? "2" : "1";
        try (point) {
            h.run(settings().withMaxUnavailable(budget), h.driver, point).rollout();
            point.reached(WAIT);
            return rerun(h, budget, cordonedByOther, cordonsBefore, whileRerun);
        }
    }

    private static String rerun(Harness h, String budget, boolean cordonedByOther, Map<String, Boolean> cordonsBefore,
                                Runnable whileRerun) throws Exception {
        String left = "w1 left " + (cordoned(h, "w1") ? "cordoned" : "schedulable") + " in phase " + phase(h, "w1");

        Harness.Run second = h.run(rerunSettings().withMaxUnavailable(budget)).rollout();
        if (whileRerun != null) {
            second.await(WAIT, "the rerun to resume w1", RunEvents.resumed("w1"));
            whileRerun.run();
        }
        Report r = second.report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w2").outcome(), r.toJson());
        assertEquals(1, h.driver.rebootsOf("w1"), "w1 rebooted twice");
        assertEquals(1, h.driver.rebootsOf("w2"), "w2 rebooted twice");
        assertEquals(List.of(), owned(h), "crifresh annotations left behind");
        assertEquals(cordonsBefore, ApiState.cordons(h), "cordons not restored exactly");
        return left + "; rerun: exit 0, " + outcomes(r) + ", each rebooted once, no crifresh annotation left, cordons as before"
                + (cordonedByOther ? " (w1 still cordoned by its owner)" : "");
    }

    /**
     * w1 holds 2 pods, w2 3: with no fresh node to take evicted pods, the stale worker with the fewest pods is
     * rolled first and alone (the eviction placement's seed), so w1 is drained first and w2 not started when
     * the run dies. (Before the seed rule the first node was w1 by name; with w2 empty, w2 would be the seed,
     * rebooted by the first run, and rightly skipped as fresh by the rerun.)
     */
    private static String killedMidDrain(Harness h) throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.addPod("shop", "web-0", "w1");
        h.cluster.addPod("shop", "db-0", "w1");
        for (String pod : W2_PODS) {
            h.cluster.addPod("shop", pod, "w2");
        }
        h.cluster.acceptEvictions("shop", "web-0", h.evictions);
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        acceptW2Evictions(h);
        // mid-drain: the first thing w1's roll reports once web-0 is gone (db-0's eviction is always refused); the
        // API is read on the run's event loop only then, right before it freezes anyway
        try (FreezePoint point = new FreezePoint("mid-drain", RunEvents.progressOf("w1").and(e -> h.cluster.podsOn("w1").size() == 1))) {
            h.run(settings(), h.driver, point).rollout();
            point.reached(WAIT);
            // The case is what its row says: nothing rebooted, w1 owned mid-drain, w2 not touched.
            assertEquals(List.of(), h.driver.reboots(), "a reboot before the kill");
            assertEquals("draining", phase(h, "w1"));
            assertTrue(cordoned(h, "w1"), "w1 not cordoned while draining");
            assertNull(phase(h, "w2"), "w2 was started before w1's drain");
            assertEquals(List.of("db-0"), h.cluster.podsOn("w1").stream().map(p -> p.getMetadata().getName()).toList());
            return rerunAfterDrain(h);
        }
    }

    private static void acceptW2Evictions(Harness h) {
        for (String pod : W2_PODS) {
            h.cluster.acceptEvictions("shop", pod, h.evictions);
        }
    }

    private static String rerunAfterDrain(Harness h) throws Exception {
        String left = "w1 left cordoned=" + cordoned(h, "w1") + " in phase " + phase(h, "w1")
                + ", 1 pod left, nothing rebooted, w2 not started";

        h.cluster.server.clearExpectations();
        h.cluster.acceptEvictions("shop", "db-0", h.evictions);
        acceptW2Evictions(h);
        Report r = h.run(rerunSettings()).rollout().report();
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w2").outcome(), r.toJson());
        assertEquals(List.of("w1", "w2"), h.driver.reboots(), "each rebooted exactly once, w1 first");
        assertEquals(List.of(), h.cluster.podsOn("w1"), "pods left on w1");
        assertEquals(List.of(), h.cluster.podsOn("w2"), "pods left on w2");
        assertEquals(List.of(), owned(h));
        assertFalse(cordoned(h, "w1"));
        assertFalse(cordoned(h, "w2"));
        return left + "; rerun: drains the rest, exit 0, " + outcomes(r) + ", each rebooted once (w1 first),"
                + " nothing left cordoned or owned";
    }

    // ---- node faults ---------------------------------------------------------------------------------

    /**
     * The policy of docs/coordinator.md ("A node deleted during the run"), the same in every step (N2: while
     * rebooting): the deleted node fails, nothing is patched on it, and the run stops as at any failure — no
     * further node is started. w2 holds more pods than w1, so w1 is rolled first (the eviction placement's seed)
     * and w2 is still queued when w1 goes away.
     */
    private static String deletedWhileDraining(Harness h) throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.addPod("shop", "db-0", "w1");
        for (String pod : W2_PODS) {
            h.cluster.addPod("shop", pod, "w2");
        }
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        acceptW2Evictions(h);
        Harness.Run run = h.run(settings()).rollout();
        Poll.until(WAIT, "w1 draining", () -> h.cluster.refusals() > 0);
        assertNull(phase(h, "w2"), "w2 was started before w1");
        h.cluster.test.nodes().withName("w1").delete();
        Report r = run.report();
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(Outcome.FAILED, line(r, "w1").outcome(), r.toJson());
        // Acted on at once, not when the drain timed out (20 s) or its last eviction call returned.
        assertEquals("the node was deleted during its rollout (while draining)", line(r, "w1").detail(), r.toJson());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome(), r.toJson());
        assertEquals(List.of(), h.driver.reboots());
        assertFalse(cordoned(h, "w2"));
        assertEquals(W2_PODS.size(), h.cluster.podsOn("w2").size(), "w2's pods were evicted");
        assertEquals(List.of(), owned(h));
        return "exit 1, " + outcomes(r) + " (w1: " + line(r, "w1").detail() + "); no reboot; w2 untouched (not cordoned,"
                + " its pods not evicted)";
    }

    private static String deletedWhileRebooting(Harness h) throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.Run run = h.run(settings()).rollout();
        // After the driver call returned: deleted during it, the driver's own writes to the node fail (404), and the
        // coordinator rightly reports a failed reboot request that may have got through — another fault than this row's.
        Poll.until(WAIT, "w1 rebooting", () -> run.events.stream().anyMatch(RunEvents.event("w1", EventReason.REBOOT_REQUESTED))
                && "rebooting".equals(phase(h, "w1")));
        h.cluster.test.nodes().withName("w1").delete();
        Report r = run.report();
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(Outcome.FAILED, line(r, "w1").outcome());
        assertTrue(line(r, "w1").detail().contains("deleted"), line(r, "w1").detail());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
        assertEquals(List.of("w1"), h.driver.reboots());
        assertFalse(cordoned(h, "w2"));
        assertEquals(List.of(), owned(h));
        return "exit 1, " + outcomes(r) + " (w1: " + line(r, "w1").detail() + "); w2 not started";
    }

    private static String backWithTheSameBootId(Harness h) throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        String boot = h.cluster.node("w1").getStatus().getNodeInfo().getBootID();
        try (SameBootDriver driver = new SameBootDriver(h.cluster)) {
            Report r = h.run(settings().withRebootTimeout(Duration.ofSeconds(2)), driver).rollout().report();
            assertEquals(Outcome.FAILED, line(r, "w1").outcome(), r.toJson());
            assertTrue(r.exitCode() != 0, r.toJson());
            assertEquals(0, r.summary().rebooted(), "a node counted as rebooted");
            assertTrue(line(r, "w1").detail().contains("new boot id"), line(r, "w1").detail());
            assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
            assertEquals(1, driver.calls("w1"));
            assertEquals(0, driver.calls("w2"));
            assertEquals(boot, h.cluster.node("w1").getStatus().getNodeInfo().getBootID());
            assertTrue(cordoned(h, "w1"), "a node that may still reboot was uncordoned");
            assertEquals("rebooting", phase(h, "w1"), "a rerun must keep waiting for a new boot id");
            assertEquals(boot, ApiState.annotations(h, "w1").get("crifresh.dev/boot-id"));
            return "exit " + r.exitCode() + ", " + outcomes(r) + ", 0 counted rebooted; w1 left cordoned in phase rebooting with"
                    + " the old boot id recorded, so a rerun waits for a new one";
        }
    }

    private static String neverAttests(Harness h) throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.driver.behave("w1", Behaviour.NO_AGENT);
        Report r = h.run(settings().withAttestTimeout(Duration.ofSeconds(2))).rollout().report();
        assertEquals(Outcome.FAILED, line(r, "w1").outcome(), r.toJson());
        assertTrue(r.exitCode() != 0);
        assertTrue(line(r, "w1").detail().contains("no fresh attestation"), line(r, "w1").detail());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome());
        assertEquals(1, h.driver.rebootsOf("w1"));
        assertEquals(0, h.driver.rebootsOf("w2"));
        assertTrue(cordoned(h, "w1"));
        assertEquals("verifying", phase(h, "w1"));
        assertFalse(cordoned(h, "w2"));
        return "exit " + r.exitCode() + ", " + outcomes(r) + "; w1 left cordoned in phase verifying (a rerun waits for the"
                + " attestation), w2 not started";
    }

    private static String controlPlaneNotReadyDuringWorkers(Harness h) throws Exception {
        h.worker("w1", Verdict.STALE);
        h.controlPlane("cp1", Verdict.STALE);
        h.controlPlane("cp2", Verdict.FRESH);
        h.controlPlane("cp3", Verdict.FRESH);
        h.driver.behave("w1", Behaviour.HOLD);
        try (Timeline timeline = new Timeline(h.cluster)) {
            Harness.Run run = h.run(settings()).rollout();
            Poll.until(WAIT, "w1 rebooting", () -> h.driver.rebootsOf("w1") == 1);
            h.cluster.setReady("cp2", false);
            h.driver.bringBack("w1");
            run.await(WAIT, "cp1 to wait for cp2", RunEvents.is(RunEvent.Blocked.class));
            assertEquals(0, h.driver.rebootsOf("cp1"), "a control plane rebooted while another was NotReady");
            assertFalse(cordoned(h, "cp1"));
            assertNull(phase(h, "cp1"));
            h.cluster.setReady("cp2", true);
            Report r = run.report();
            assertEquals(0, r.exitCode(), r.toJson());
            assertEquals(List.of("w1", "cp1"), r.rebootOrder());
            for (Set<String> down : timeline.unavailableSets()) {
                assertFalse(down.contains("cp1") && down.contains("cp2"), "cp1 down while cp2 NotReady: " + down);
            }
            return "cp1 waited (not cordoned, not owned) while cp2 was NotReady; after cp2 returned: exit 0, " + outcomes(r)
                    + "; cp1 never down together with cp2";
        }
    }

    // ---- budget --------------------------------------------------------------------------------------

    private static String budgetUsedByOthers(Harness h) throws Exception {
        for (int i = 1; i <= 3; i++) {
            h.worker("w" + i, Verdict.STALE);
        }
        h.worker("x-notready", Verdict.FRESH);
        h.cluster.setReady("x-notready", false);
        h.worker("x-cordoned", Verdict.FRESH);
        h.cluster.mergePatch("x-cordoned", "{\"spec\":{\"unschedulable\":true}}");
        try (Timeline timeline = new Timeline(h.cluster)) {
            Harness.Run run = h.run(settings().withMaxUnavailable("2")).rollout();
            run.await(WAIT, "the budget to block", RunEvents.is(RunEvent.Blocked.class));
            assertEquals(List.of(), h.driver.reboots(), "a reboot while the budget was used up");
            assertEquals(List.of(), owned(h));
            h.cluster.setReady("x-notready", true);
            Report r = run.report();
            assertEquals(0, r.exitCode(), r.toJson());
            assertEquals(3, r.summary().rebooted());
            int most = timeline.maxUnavailable();
            assertTrue(most <= 2, "more than 2 unavailable: " + timeline.unavailableSets());
            for (Set<String> down : timeline.unavailableSets()) {
                assertTrue(down.contains("x-cordoned"), "the other owner's cordon was lifted: " + down);
            }
            assertTrue(cordoned(h, "x-cordoned"));
            assertEquals(List.of(), owned(h));
            return "nothing started while 2 were down; after x-notready returned: exit 0, 3 rebooted one at a time, at most "
                    + most + " down at once (mock history), x-cordoned stayed cordoned throughout";
        }
    }

    private static String percentBudget(Harness h) throws Exception {
        for (int i = 1; i <= 7; i++) {
            h.worker("w" + i, Verdict.STALE);
        }
        try (Timeline timeline = new Timeline(h.cluster)) {
            Report r = h.rollout(settings().withMaxUnavailable("25%"));
            assertEquals(0, r.exitCode(), r.toJson());
            assertEquals(7, r.summary().rebooted());
            assertEquals(1, timeline.maxUnavailable(), "25% of 7 rounds down to 1: " + timeline.unavailableSets());
            assertEquals(List.of(), owned(h));
            assertTrue(ApiState.cordons(h).values().stream().noneMatch(c -> c));
            return "exit 0, 7 rebooted, at most " + timeline.maxUnavailable() + " down at once (mock history; 25% of 7 rounds down)";
        }
    }
}
