package dev.crifresh.sim.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.gate.etcd.CommandOutput;
import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.external.SimulatedTalosctl;
import dev.crifresh.sim.node.NodeObjects;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.scenario.ScenarioReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the rollout gates read from the simulated cluster: Prometheus alerts, batch-job pods, talosctl's etcd tables. */
class SimulatedGateInputsTest {
    @RegisterExtension
    final SimulatedWorlds worlds = new SimulatedWorlds();
    private SimulatedWorld cluster;

    private void build(String yaml) throws Exception {
        cluster = worlds.track(SimulatedWorld.create(ScenarioReader.parse(yaml), worlds.vertx(), (client, keys) -> new RecordingLauncher()));
    }

    @Test
    void prometheusServesFiringAlertsUntilTheyClear() throws Exception {
        build("""
                alerts:
                  - {name: NodeMaintenance, clearsAfterSeconds: 0.3}
                  - {name: Watchdog}
                nodes: [{name: w-1}]
                """);
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.prometheus().url() + "/api/v1/alerts")).build();
        String body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(body.contains("\"alertname\":\"NodeMaintenance\"") && body.contains("\"state\":\"firing\""), body);
        cluster.beginRun();
        Poll.until(Duration.ofSeconds(5), "NodeMaintenance cleared", () -> cluster.prometheus().firing().equals(List.of("Watchdog")));
        body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(!body.contains("NodeMaintenance") && body.contains("Watchdog"), body);
        assertEquals(404, http.send(HttpRequest.newBuilder(URI.create(cluster.prometheus().url() + "/api/v1/rules")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    @Test
    void aBatchJobPodRunsUntilItFinishes() throws Exception {
        build("""
                nodes:
                  - {name: w-1, batchJob: {finishesAfterSeconds: 0.2}}
                  - {name: w-2, batchJob: {}}
                """);
        assertEquals(2, cluster.client().pods().inNamespace(NodeObjects.JOB_NAMESPACE).withLabel("app", "batch").list()
                .getItems().size());
        cluster.beginRun();
        Poll.until(Duration.ofSeconds(10), "w-1's job finished", () -> cluster.events().stream()
                .anyMatch(e -> e.kind() == SimEvent.Kind.BATCH_JOB_FINISHED && "w-1".equals(e.node())));
        assertEquals(null, cluster.client().pods().inNamespace(NodeObjects.JOB_NAMESPACE)
                .withName(NodeObjects.batchJobPodName("w-1")).get());
        assertEquals(1, cluster.client().pods().inNamespace(NodeObjects.JOB_NAMESPACE).list().getItems().size());
    }

    @Test
    void talosctlReportsEtcdMembersAsTalosctlPrintsThem() throws Exception {
        build("""
                simulation: {rebootMillis: 60000}
                nodes:
                  - {name: cp-1, role: control-plane}
                  - {name: cp-2, role: control-plane, etcd: unhealthy}
                  - {name: cp-3, role: control-plane}
                """);
        String ips = String.join(",", cluster.node("cp-1").internalIp(), cluster.node("cp-2").internalIp(),
                cluster.node("cp-3").internalIp());
        CommandOutput status = cluster.talosctl().run(List.of("talosctl", "-n", ips, "etcd", "status"));
        assertEquals(0, status.exitCode(), status.stderr());
        List<String> lines = status.stdout().lines().toList();
        assertTrue(lines.get(0).startsWith("NODE   "), lines.get(0));
        assertEquals(4, lines.size());
        assertTrue(lines.get(2).contains(SimulatedTalosctl.memberId(cluster.node("cp-2"))));
        assertTrue(lines.get(2).contains("etcdserver: no leader"), lines.get(2));
        assertEquals(lines.get(0).indexOf("LEADER"), lines.get(1).indexOf(SimulatedTalosctl.memberId(cluster.node("cp-1")),
                20), "columns aligned as a tabwriter aligns them");

        cluster.requestReboot("cp-3");
        Poll.until(Duration.ofSeconds(5), "cp-3 going down", () -> cluster.node("cp-3").state() != SimulatedNode.State.UP);
        CommandOutput down = cluster.talosctl().run(List.of("talosctl", "-n", ips, "etcd", "status"));
        assertEquals(1, down.exitCode());
        assertTrue(down.stderr().startsWith("error from node " + cluster.node("cp-3").internalIp() + ": rpc error"),
                down.stderr());
        CommandOutput members = cluster.talosctl().run(List.of("talosctl", "-n", cluster.node("cp-1").internalIp(), "etcd",
                "members"));
        assertEquals(4, members.stdout().lines().count(), members.stdout());
        assertEquals("", cluster.talosctl().run(List.of("talosctl", "-n", ips, "etcd", "alarm", "list")).stdout());
    }
}
