package dev.crifresh.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The report JSON is the schema of SCENARIOS.md (plus detail, markerContradicts and error). */
class ReportTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static Report sample(StopReason stop, String error) {
        List<NodeReport> nodes = List.of(
                new NodeReport("worker-a", Role.WORKER, NodeVerdict.FRESH, "ContainerdStartedAfterConfig", Decision.SKIP,
                        Outcome.SKIPPED, true, false, "containerd loaded the current config", null),
                new NodeReport("worker-b", Role.WORKER, NodeVerdict.STALE, "ConfigChangedAfterContainerdStart", Decision.REBOOT,
                        stop == StopReason.COMPLETED ? Outcome.REBOOTED : Outcome.FAILED, true, true, "rebooted | fine", "reboot"),
                new NodeReport("cp-1", Role.CONTROL_PLANE, NodeVerdict.CONFIG_PENDING, "DesiredCredentialNotInConfig", Decision.WAIT,
                        Outcome.BECAME_FRESH, false, false, "the config now holds it", "wait-restart"),
                new NodeReport("cp-2", Role.CONTROL_PLANE, NodeVerdict.UNKNOWN, "AttestationExpired", Decision.REBOOT,
                        Outcome.NOT_ATTEMPTED, false, false, "attestation rejected", null));
        return Report.of(stop == StopReason.COMPLETED ? Result.SUCCEEDED : Result.FAILED, nodes, List.of("worker-b"), stop, error);
    }

    private static Set<String> fields(JsonNode node) {
        return new TreeSet<>(node.propertyNames());
    }

    @Test
    void warningsAreListedInEveryFormatAndOnlyWhenThereAreSome() {
        String w = "cannot create the Alertmanager silence node=\"worker-b\" for worker-b: http://am:9093/api/v2/silences: refused";
        Report r = sample(StopReason.COMPLETED, null).withWarnings(List.of(w)).withCluster(null);
        JsonNode root = JSON.readTree(r.toJson());
        assertEquals(w, root.get("warnings").get(0).asString());
        assertEquals(1, root.get("warnings").size());
        assertEquals(0, r.exitCode(), "a warning never changes the exit code");
        assertTrue(TextReport.render(r).contains("WARNING: " + w), TextReport.render(r));
        assertTrue(MarkdownReport.render("rollout", r).contains("> **Warning:** " + w), MarkdownReport.render("rollout", r));
        assertFalse(sample(StopReason.COMPLETED, null).toJson().contains("warnings"));
    }

    @Test
    void jsonHasExactlyTheScenarioSchema() {
        JsonNode root = JSON.readTree(sample(StopReason.COMPLETED, null).toJson());
        assertEquals(Set.of("result", "nodes", "summary", "rebootOrder"), fields(root));
        assertEquals("succeeded", root.get("result").asString());
        for (JsonNode n : root.get("nodes")) {
            assertEquals(Set.of("name", "role", "verdict", "reason", "decision", "action", "outcome", "markerSaysCurrent",
                    "markerContradicts", "detail"), fields(n));
            assertTrue(n.get("action").isNull() || Set.of("reboot", "wait-restart").contains(n.get("action").asString()),
                    n.toString());
            assertTrue(n.get("markerSaysCurrent").isBoolean());
            assertTrue(Set.of("worker", "control-plane").contains(n.get("role").asString()));
            assertTrue(Set.of("fresh", "stale", "config-pending", "unknown").contains(n.get("verdict").asString()));
            assertTrue(Set.of("skip", "reboot", "wait").contains(n.get("decision").asString()));
            assertTrue(Set.of("skipped", "rebooted", "became-fresh", "failed", "not-attempted").contains(n.get("outcome").asString()));
        }
        assertTrue(root.get("nodes").get(0).get("action").isNull(), "a skipped node has no action");
        assertEquals("reboot", root.get("nodes").get(1).get("action").asString());
        assertEquals("wait-restart", root.get("nodes").get(2).get("action").asString());
        JsonNode s = root.get("summary");
        assertEquals(Set.of("nodes", "fresh", "stale", "configPending", "unknown", "rebooted", "skipped", "failed"), fields(s));
        assertEquals(4, s.get("nodes").asInt());
        assertEquals(1, s.get("fresh").asInt());
        assertEquals(1, s.get("stale").asInt());
        assertEquals(1, s.get("configPending").asInt());
        assertEquals(1, s.get("unknown").asInt());
        assertEquals(1, s.get("rebooted").asInt());
        assertEquals(1, s.get("skipped").asInt());
        assertEquals(0, s.get("failed").asInt());
        List<String> order = new ArrayList<>();
        root.get("rebootOrder").forEach(x -> order.add(x.asString()));
        assertEquals(List.of("worker-b"), order);
    }

    @Test
    void failedReportsCarryTheErrorAndTheExitCode() {
        Report r = sample(StopReason.NODE_FAILED, "worker-b: drain did not finish");
        JsonNode root = JSON.readTree(r.toJson());
        assertEquals("failed", root.get("result").asString());
        assertEquals("worker-b: drain did not finish", root.get("error").asString());
        assertEquals(1, root.get("summary").get("failed").asInt());
        assertEquals(1, r.exitCode());
        assertEquals(3, sample(StopReason.TIMED_OUT, "x").exitCode());
        assertEquals(4, sample(StopReason.LOCK_NOT_ACQUIRED, "x").exitCode());
        assertEquals(4, sample(StopReason.LOCK_LOST, "x").exitCode());
        assertEquals(0, sample(StopReason.COMPLETED, null).exitCode());
    }

    @Test
    void textTableShowsEveryNodeAndWarnsAboutTheMarker() {
        String text = TextReport.render(sample(StopReason.COMPLETED, null));
        String[] lines = text.split("\n");
        assertTrue(lines[0].startsWith("NODE"), text);
        assertTrue(lines[1].startsWith("worker-a "), text);
        assertTrue(text.contains("result: succeeded"), text);
        assertTrue(text.contains("reboot order: worker-b"), text);
        assertTrue(text.contains("WARNING: worker-b: the machine-config marker says current, but containerd is stale"), text);
        assertFalse(text.contains("WARNING: worker-a"), text);
        int column = lines[0].indexOf("VERDICT");
        assertEquals("fresh", lines[1].substring(column, column + 5));
        assertEquals("config-pending", lines[3].substring(column, column + 14));
        int action = lines[0].indexOf("ACTION");
        assertEquals("- ", lines[1].substring(action, action + 2));
        assertEquals("reboot ", lines[2].substring(action, action + 7));
        assertEquals("wait-restart ", lines[3].substring(action, action + 13));
    }

    @Test
    void markdownEscapesCellsAndNamesTheResult() {
        String md = MarkdownReport.render("rollout", sample(StopReason.NODE_FAILED, "worker-b failed"));
        assertTrue(md.startsWith("### crifresh rollout: failed\n"), md);
        assertTrue(md.contains("| worker-b | worker | stale |"), md);
        assertTrue(md.contains("rebooted \\| fine"), md);
        assertTrue(md.contains("**yes — but containerd is stale**"), md);
        assertTrue(md.contains("Reboot order: worker-b"), md);
    }

    @Test
    void theStaleTaintAndJoinedNodesAppearInEveryFormat() {
        Report r = sample(StopReason.COMPLETED, null)
                .withPlacement(new dev.crifresh.coordinator.placement.EvictionPlacement(
                        dev.crifresh.coordinator.base.StaleTaint.PREFER_NO_SCHEDULE, List.of("worker-b", "cp-2"), List.of(), "worker-b", 0))
                .withJoinedDuringRun(List.of("cp-2"));
        JsonNode root = JSON.readTree(r.toJson());
        assertEquals(Set.of("result", "nodes", "summary", "rebootOrder", "staleTaint", "joinedDuringRun"), fields(root));
        JsonNode t = root.get("staleTaint");
        assertEquals(Set.of("key", "effect", "tainted", "freshSchedulable", "seed"), fields(t));
        assertEquals("crifresh.dev/stale", t.get("key").asString());
        assertEquals("PreferNoSchedule", t.get("effect").asString());
        assertEquals("worker-b", t.get("seed").asString());
        assertEquals("cp-2", root.get("joinedDuringRun").get(0).asString());
        String text = TextReport.render(r);
        assertTrue(text.contains("evicted pods: tainting crifresh.dev/stale:PreferNoSchedule on worker-b, cp-2; fresh schedulable nodes"
                + " for evicted pods: none; worker-b (0 pods to evict) is rolled first and alone as the seed"), text);
        assertTrue(text.contains("joined during the run: cp-2"), text);
        String md = MarkdownReport.render("rollout", r);
        assertTrue(md.contains("Evicted pods: tainting crifresh.dev/stale:PreferNoSchedule"), md);
        assertTrue(md.contains("Joined during the run: cp-2"), md);
    }
}
