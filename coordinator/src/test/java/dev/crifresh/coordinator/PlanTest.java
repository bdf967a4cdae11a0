package dev.crifresh.coordinator;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class PlanTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    private Map<String, String> snapshot() {
        Map<String, String> out = new TreeMap<>();
        JsonMapper json = JsonMapper.builder().build();
        for (Node n : h.cluster.nodes()) {
            out.put(n.getMetadata().getName(), json.writeValueAsString(n));
        }
        return out;
    }

    private List<RecordedRequest> drainRequests() throws InterruptedException {
        List<RecordedRequest> out = new ArrayList<>();
        RecordedRequest r;
        while ((r = h.cluster.server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
            out.add(r);
        }
        return out;
    }

    @Test
    void planClassifiesEveryNodeAndChangesNothing() throws Exception {
        h.worker("w-fresh", Verdict.FRESH);
        h.worker("w-stale", Verdict.STALE);
        h.cluster.mergePatch("w-stale", "{\"metadata\":{\"annotations\":{\"" + ConditionContract.DEFAULT_MARKER_ANNOTATION + "\":\"rev-9\"}}}");
        h.node("w-pending", false, Verdict.FRESH, TestAgent.OLD);
        h.node("w-silent", false, null, null);
        h.controlPlane("cp-stale", Verdict.STALE);
        h.cluster.mergePatch("cp-stale", "{\"spec\":{\"unschedulable\":true}}");
        Map<String, String> before = snapshot();
        drainRequests();

        Report r = h.run(Harness.fastSettings()).plan();

        List<RecordedRequest> requests = drainRequests();
        assertFalse(requests.isEmpty());
        for (RecordedRequest req : requests) {
            assertEquals("GET", req.getMethod(), "plan sent " + req.getMethod() + " " + req.getPath());
        }
        assertEquals(before, snapshot());
        assertNull(h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").get());

        assertEquals(Result.PLANNED, r.result());
        assertEquals(0, r.exitCode());
        assertEquals(List.of("w-silent", "w-stale", "cp-stale"), r.rebootOrder());
        expect(line(r, "w-fresh"), NodeVerdict.FRESH, Decision.SKIP);
        expect(line(r, "w-stale"), NodeVerdict.STALE, Decision.REBOOT);
        expect(line(r, "w-pending"), NodeVerdict.CONFIG_PENDING, Decision.WAIT);
        expect(line(r, "w-silent"), NodeVerdict.UNKNOWN, Decision.REBOOT);
        expect(line(r, "cp-stale"), NodeVerdict.STALE, Decision.REBOOT);
        assertEquals("AttestationMissing", line(r, "w-silent").reason());
        assertTrue(line(r, "w-stale").markerSaysCurrent());
        assertTrue(line(r, "w-stale").markerContradicts());
        assertEquals(List.of("cp-stale", "w-fresh", "w-pending", "w-silent", "w-stale"), r.nodes().stream().map(NodeReport::name).toList());
        assertEquals(5, r.summary().nodes());
        assertEquals(1, r.summary().fresh());
        assertEquals(2, r.summary().stale());
        assertEquals(1, r.summary().configPending());
        assertEquals(1, r.summary().unknown());
        assertEquals(0, r.summary().rebooted() + r.summary().skipped() + r.summary().failed());
    }

    private static void expect(NodeReport n, NodeVerdict verdict, Decision decision) {
        assertEquals(verdict, n.verdict(), n.name());
        assertEquals(decision, n.decision(), n.name());
        assertEquals(Outcome.NOT_ATTEMPTED, n.outcome(), n.name());
    }

    @Test
    void planWithActionNoneWaitsInsteadOfRebooting() throws Exception {
        h.worker("w-stale", Verdict.STALE);
        Report r = h.run(Harness.fastSettings().toBuilder().action(Action.NONE).build()).plan();
        assertEquals(Decision.WAIT, line(r, "w-stale").decision());
    }

    @Test
    void aDuplicateAttestationConditionIsUnknownWhicheverEntryComesLast() throws Exception {
        h.worker("w1", Verdict.STALE);
        Node node = h.cluster.node("w1");
        String token = h.agent.sign(TestAgent.claims(node, Verdict.FRESH,
                dev.crifresh.common.evidence.Reason.CONTAINERD_STARTED_AFTER_CONFIG, h.agent.holds(TestAgent.DESIRED)));
        h.cluster.appendCondition("w1", new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                .withType(ConditionContract.CONDITION_TYPE).withStatus(Verdict.FRESH.conditionStatus())
                .withReason("ContainerdStartedAfterConfig")
                .withMessage(dev.crifresh.common.kube.AttestationMessage.format("a second entry", token)).build());
        long entries = h.cluster.node("w1").getStatus().getConditions().stream()
                .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType())).count();
        assertEquals(2, entries, "the mock did not keep both entries");
        Report r = h.run(Harness.fastSettings()).plan();
        NodeReport w1 = line(r, "w1");
        assertEquals(NodeVerdict.UNKNOWN, w1.verdict(), w1.detail());
        assertEquals("DuplicateCondition", w1.reason());
        assertEquals(Decision.REBOOT, w1.decision());
    }

    @Test
    void nodeSelectorLimitsTheNodes() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
        h.cluster.mergePatch("w2", "{\"metadata\":{\"labels\":{\"pool\":\"blue\"}}}");
        Report r = h.run(Harness.fastSettings().toBuilder().nodeSelector("pool=blue").build()).plan();
        assertEquals(List.of("w2"), r.nodes().stream().map(NodeReport::name).toList());
    }
}
