package dev.crifresh.coordinator.rollout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.report.Report;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Kubernetes Events a rollout records on the Nodes it works on, as {@code kubectl describe node} finds them. */
class RolloutEventsTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    /** The harness's settings with a Lease that a loaded 2-core machine cannot let expire by a late renewal. */
    private static dev.crifresh.coordinator.base.CoordinatorSettings settings() {
        return Harness.fastSettings().toBuilder().leaseDuration(Duration.ofSeconds(15)).build();
    }

    /** The node's Events in the order they were emitted (the name ends in the run's sequence number). */
    private List<Event> eventsOn(String node) {
        return h.cluster.test.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> node.equals(e.getInvolvedObject().getName()))
                .sorted(Comparator.comparingLong(e -> Long.parseLong(e.getMetadata().getName()
                        .substring(e.getMetadata().getName().lastIndexOf('-') + 1))))
                .toList();
    }

    private static List<String> reasons(List<Event> events) {
        return events.stream().map(Event::getReason).toList();
    }

    @Test
    void aRebootedNodeCarriesEveryStepAsAnEventAFreshNodeNone() throws Exception {
        h.worker("w1", Verdict.FRESH);
        h.worker("w2", Verdict.STALE);
        String uid = h.cluster.node("w2").getMetadata().getUid();
        Report r = h.rollout(settings().toBuilder().runId("run-ev1").build());
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(20), "the Uncordoned event", () -> reasons(eventsOn("w2")).contains("CrifreshUncordoned"));
        List<Event> events = eventsOn("w2");
        List<String> reasons = reasons(events).stream().filter(x -> !x.endsWith("ainted")).toList();
        assertEquals(List.of("CrifreshCordoned", "CrifreshDraining", "CrifreshDrained", "CrifreshRebootRequested",
                "CrifreshReturned", "CrifreshFresh", "CrifreshUncordoned"), reasons);
        for (Event e : events) {
            assertEquals("Node", e.getInvolvedObject().getKind());
            assertEquals(uid, e.getInvolvedObject().getUid(), "kubectl describe node matches on the Node's UID");
            assertEquals("Normal", e.getType());
            assertEquals("crifresh-coordinator", e.getSource().getComponent());
            assertEquals("run-ev1", e.getReportingInstance());
            assertTrue(e.getMessage().startsWith("run-ev1: "), e.getMessage());
        }
        assertEquals(List.of(), reasons(eventsOn("w1")).stream().filter(x -> !x.endsWith("ainted")).toList());
    }

    @Test
    void aFailedNodeGetsAWarningEvent() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.driver.behave("w1", Behaviour.NEVER_RETURNS);
        Report r = h.rollout(settings().toBuilder().rebootTimeout(Duration.ofMillis(500)).stallTimeout(Duration.ofMillis(500)).build());
        assertEquals(Result.FAILED, r.result(), r.toJson());
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(20), "the Failed event", () -> reasons(eventsOn("w1")).contains("CrifreshFailed"));
        Event failed = eventsOn("w1").stream().filter(e -> e.getReason().equals("CrifreshFailed")).findFirst().orElseThrow();
        assertEquals("Warning", failed.getType());
        assertTrue(failed.getMessage().contains("did not return Ready with a new boot id"), failed.getMessage());
    }

    @Test
    void eventsThatCannotBeWrittenDoNotStopTheRollout() throws Exception {
        h.cluster.server.expect().post().withPath("/api/v1/namespaces/default/events")
                .andReply(403, request -> new StatusBuilder().withStatus("Failure").withCode(403).withReason("Forbidden")
                        .withMessage("events is forbidden").build()).always();
        h.worker("w1", Verdict.STALE);
        Report r = h.rollout(settings());
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertEquals(1, r.summary().rebooted());
        assertEquals(1, h.progress.stream().filter(l -> l.startsWith("warning: cannot record Events on nodes")).count(),
                String.join("\n", h.progress));
        assertEquals(List.of(), h.cluster.test.v1().events().inNamespace("default").list().getItems());
    }

    @Test
    void aDrainedNodeHeldBackRightBeforeItsRebootIsRecordedDrainedOnce() throws Exception {
        h.controlPlane("cp1", Verdict.STALE);
        h.controlPlane("cp2", Verdict.FRESH);
        h.controlPlane("cp3", Verdict.FRESH);
        h.cluster.addPod("shop", "db-0", "cp1");
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        Harness.RolloutRun run = h.run("a", settings(), lines).rollout();
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(90), "cp1 draining", () -> h.cluster.refusals() > 0);
        h.cluster.setReady("cp2", false); // the last-moment check holds cp1 back, checking again every second
        h.cluster.server.clearExpectations();
        h.cluster.acceptEvictions("shop", "db-0", h.evictions);
        int before = reads(h, "cp1");
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(90), "cp1 checked again three times", () -> reads(h, "cp1") >= before + 4);
        h.cluster.setReady("cp2", true);
        Report r = run.report(Duration.ofSeconds(90));
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(20), "the Uncordoned event", () -> reasons(eventsOn("cp1")).contains("CrifreshUncordoned"));
        assertEquals(1, reasons(eventsOn("cp1")).stream().filter("CrifreshDrained"::equals).count(), reasons(eventsOn("cp1")).toString());
    }

    /** The coordinator's reads of one node (the last-moment check reads it fresh each time). */
    private static int reads(Harness h, String node) {
        return h.cluster.api.dispatcher().history("a", x -> "GET".equals(x.method()) && x.path().equals("/api/v1/nodes/" + node)).size();
    }
}
