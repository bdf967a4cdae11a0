package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --action auto} on a cluster in the middle of a Talos upgrade: nodes on Talos 1.14+ are waited for (they
 * restart containerd themselves), all others are rebooted; against fabric8's mock API server in CRUD mode.
 */
class AutoActionTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    /** The mixed cluster: every node stale but one, each with the osImage its kubelet would report. */
    private void mixedCluster() {
        talos(h.worker("w-114", Verdict.STALE).getMetadata().getName(), "Talos (v1.14.1)");
        talos(h.worker("w-113", Verdict.STALE).getMetadata().getName(), "Talos (v1.13.4)");
        talos(h.worker("w-beta", Verdict.STALE).getMetadata().getName(), "Talos (v1.14.0-beta.0)");
        h.worker("w-ubuntu", Verdict.STALE); // no Talos version at all
        talos(h.worker("w-fresh", Verdict.FRESH).getMetadata().getName(), "Talos (v1.14.1)");
    }

    private void talos(String node, String osImage) {
        h.cluster.patchStatus(node, "[{\"op\":\"add\",\"path\":\"/status/nodeInfo/osImage\",\"value\":\"" + osImage + "\"}]");
    }

    @Test
    void planShowsThePerNodeAction() throws Exception {
        mixedCluster();
        Report r = h.run(Harness.fastSettings().toBuilder().action(Action.AUTO).build()).plan();
        expect(line(r, "w-114"), Decision.WAIT, "wait-restart");
        expect(line(r, "w-113"), Decision.REBOOT, "reboot");
        expect(line(r, "w-beta"), Decision.REBOOT, "reboot");
        expect(line(r, "w-ubuntu"), Decision.REBOOT, "reboot");
        expect(line(r, "w-fresh"), Decision.SKIP, null);
        assertTrue(line(r, "w-114").detail().startsWith("Talos v1.14.1 restarts containerd itself"), line(r, "w-114").detail());
        assertTrue(line(r, "w-ubuntu").detail().startsWith("no Talos version reported"), line(r, "w-ubuntu").detail());
        assertEquals(Set.of("w-113", "w-beta", "w-ubuntu"), Set.copyOf(r.placement().tainted()), "only rebooted nodes are tainted");
        assertTrue(r.toJson().contains("\"action\" : \"wait-restart\""), r.toJson());
    }

    @Test
    void theTalos114NodeIsWaitedForAndTheOthersAreRebooted() throws Exception {
        mixedCluster();
        try (Timeline timeline = new Timeline(h.cluster)) {
            Harness.RolloutRun run = h.run(Harness.fastSettings().toBuilder().action(Action.AUTO).build()).rollout();
            run.await(Duration.ofSeconds(20), "the wait", RunEvents.is(RunEvent.FreshWaitStarted.class));
            assertTrue(h.driver.reboots().isEmpty(), "the reboots wait until the restarting nodes are fresh");
            h.agent.attest(h.cluster, "w-114", Verdict.FRESH, TestAgent.DESIRED);
            Report r = run.report();

            assertEquals(0, r.exitCode(), r.toJson());
            assertEquals(Outcome.BECAME_FRESH, line(r, "w-114").outcome());
            expect(line(r, "w-114"), Decision.WAIT, "wait-restart");
            for (String name : List.of("w-113", "w-beta", "w-ubuntu")) {
                assertEquals(Outcome.REBOOTED, line(r, name).outcome(), name);
                assertEquals("reboot", line(r, name).action(), name);
            }
            assertEquals(Outcome.SKIPPED, line(r, "w-fresh").outcome());
            assertNull(line(r, "w-fresh").action());
            assertEquals(Set.of("w-113", "w-beta", "w-ubuntu"), new TreeSet<>(h.driver.reboots()));
            assertEquals("w-114", r.rebootOrder().get(0), "the wait began first: " + r.rebootOrder());
            assertEquals(Set.of("w-113", "w-beta", "w-ubuntu"), Set.copyOf(r.placement().tainted()));
            assertTrue(r.placement().freshSchedulable().contains("w-114"),
                    "a node that turned fresh takes evicted pods: " + r.placement().freshSchedulable());
            // A waited-for node is never cordoned and so never counts against --max-unavailable.
            assertFalse(timeline.cordonOrder().contains("w-114"), timeline.cordonOrder().toString());
            assertTrue(timeline.maxUnavailable() <= 1, "over the budget of 1: " + timeline.events());
        }
        List<String> w114 = reasons("w-114");
        assertEquals("CrifreshAction", w114.get(0), w114.toString());
        assertFalse(w114.contains("CrifreshCordoned"), w114.toString());
        assertTrue(message("w-114", "CrifreshAction").contains(": wait-restart: Talos v1.14.1 restarts containerd itself"));
        assertTrue(message("w-113", "CrifreshAction").contains(": reboot: Talos v1.13.4 does not restart containerd"));
        assertTrue(reasons("w-113").contains("CrifreshRebootRequested"), reasons("w-113").toString());
        assertFalse(reasons("w-fresh").contains("CrifreshAction"), reasons("w-fresh").toString());
    }

    @Test
    void aTalos114NodeThatStaysStaleEndsTheRunBeforeAnyReboot() throws Exception {
        mixedCluster();
        Report r = h.run(Harness.fastSettings().toBuilder().action(Action.AUTO).attestTimeout(Duration.ofMillis(500)).build())
                .rollout().report();
        assertEquals(3, r.exitCode(), r.toJson());
        assertEquals(Outcome.FAILED, line(r, "w-114").outcome());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w-113").outcome());
        assertTrue(h.driver.reboots().isEmpty(), h.driver.reboots().toString());
    }

    private static void expect(NodeReport n, Decision decision, String action) {
        assertEquals(decision, n.decision(), n.name());
        assertEquals(action, n.action(), n.name());
    }

    private List<Event> events(String node) {
        return h.cluster.test.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> node.equals(e.getInvolvedObject().getName()))
                .sorted(Comparator.comparingLong(e -> Long.parseLong(e.getMetadata().getName()
                        .substring(e.getMetadata().getName().lastIndexOf('-') + 1))))
                .toList();
    }

    private List<String> reasons(String node) {
        return events(node).stream().map(Event::getReason).toList();
    }

    private String message(String node, String reason) {
        return events(node).stream().filter(e -> reason.equals(e.getReason())).map(Event::getMessage).findFirst()
                .orElseThrow(() -> new AssertionError("no " + reason + " on " + node + ": " + reasons(node)));
    }
}
