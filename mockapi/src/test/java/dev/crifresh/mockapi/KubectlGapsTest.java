package dev.crifresh.mockapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What kubectl reads, asked over plain HTTP the way kubectl asks it: each test fails against fabric8's
 * bare mock (see {@link MockApiDispatcher} and docs/simulation.md, "kubectl against the simulation").
 */
class KubectlGapsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,"
            + "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    private KubernetesMockServer server;
    private KubernetesClient client;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        server = CrudApiServer.crud();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    @Test
    void discoveryNamesTheResourcesKubectlLooksUp() throws Exception {
        JsonNode api = get("/api", "application/json");
        assertEquals("APIVersions", api.path("kind").asString());
        assertEquals("v1", api.path("versions").get(0).asString());

        List<String> groups = new ArrayList<>();
        get("/apis", "application/json").path("groups").forEach(g -> groups.add(g.path("name").asString()));
        assertTrue(groups.containsAll(List.of("apps", "coordination.k8s.io", "policy")), groups.toString());

        JsonNode core = get("/api/v1", "application/json");
        assertEquals("APIResourceList", core.path("kind").asString());
        List<String> resources = new ArrayList<>();
        core.path("resources").forEach(r -> resources.add(r.path("name").asString() + ":" + r.path("kind").asString()
                + ":" + r.path("namespaced").asBoolean()));
        assertTrue(resources.containsAll(List.of("nodes:Node:false", "pods:Pod:true", "pods/eviction:Eviction:true")),
                resources.toString());
        assertEquals("Lease", get("/apis/coordination.k8s.io/v1", "application/json").path("resources").get(0)
                .path("kind").asString());
        assertEquals("v1.34.1", get("/version", "application/json").path("gitVersion").asString());
    }

    @Test
    void aFieldSelectorOnAnyFieldFiltersTheListAsKubeApiserverDoes() throws Exception {
        pod("a-1", "node-a", "Running");
        pod("a-2", "node-a", "Failed");
        pod("b-1", "node-b", "Running");
        // kubectl describe node's query
        JsonNode list = get("/api/v1/pods?fieldSelector=" + encode("spec.nodeName=node-a,status.phase!=Failed")
                + "&limit=500", "application/json");
        assertEquals(List.of("a-1"), names(list));
        assertEquals("PodList", list.path("kind").asString(), "a typed client decodes a plain List as no pods");
        assertEquals(List.of("a-1", "a-2"), names(get("/api/v1/namespaces/apps/pods?fieldSelector="
                + encode("spec.nodeName==node-a"), "application/json")));
        assertEquals(List.of("b-1"), names(get("/api/v1/pods?fieldSelector=" + encode("metadata.name=b-1"),
                "application/json")));
    }

    @Test
    void listsAreOrderedByNamespaceAndName() throws Exception {
        for (String name : List.of("worker-z", "cp-1", "worker-m", "worker-a")) {
            node(name, true);
        }
        assertEquals(List.of("cp-1", "worker-a", "worker-m", "worker-z"), names(get("/api/v1/nodes", "application/json")));
    }

    @Test
    void kubectlGetReceivesATableWithTheNodeColumns() throws Exception {
        node("cp-1", true);
        node("worker-a", false);
        client.nodes().withName("worker-a").edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec()
                .build());
        JsonNode table = get("/api/v1/nodes", TABLE_ACCEPT);
        assertEquals("Table", table.path("kind").asString());
        assertEquals("meta.k8s.io/v1", table.path("apiVersion").asString());
        List<String> columns = new ArrayList<>();
        table.path("columnDefinitions").forEach(c -> columns.add(c.path("name").asString() + "/" + c.path("priority").asInt()));
        assertEquals(List.of("Name/0", "Status/0", "Roles/0", "Age/0", "Version/0", "Internal-IP/1", "External-IP/1",
                "OS-Image/1", "Kernel-Version/1", "Container-Runtime/1"), columns);
        JsonNode cp = table.path("rows").get(0);
        assertEquals("cp-1", cp.path("cells").get(0).asString());
        assertEquals("Ready", cp.path("cells").get(1).asString());
        assertEquals("control-plane", cp.path("cells").get(2).asString());
        assertEquals("v1.34.1", cp.path("cells").get(4).asString());
        assertEquals("10.5.0.1", cp.path("cells").get(5).asString());
        assertEquals("cp-1", cp.path("object").path("metadata").path("name").asString());
        JsonNode worker = table.path("rows").get(1);
        assertEquals("NotReady,SchedulingDisabled", worker.path("cells").get(1).asString());
        assertEquals("worker", worker.path("cells").get(2).asString());

        JsonNode one = get("/api/v1/nodes/cp-1", TABLE_ACCEPT);
        assertEquals("Table", one.path("kind").asString(), "kubectl get node NAME");
        assertEquals(1, one.path("rows").size());
        assertEquals("Node", get("/api/v1/nodes/cp-1", "application/json").path("kind").asString(),
                "without the Table header: the object");
    }

    @Test
    void everyAnswerNamesItsContentType() throws Exception {
        node("cp-1", true);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url("/api/v1/nodes/cp-1")))
                .header("Accept", "application/vnd.kubernetes.protobuf,application/json").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse("(none)"),
                "without it kubectl describe decodes the JSON as protobuf");
    }

    @Test
    void ageIsPrintedAsKubectlPrintsIt() {
        Instant now = Instant.parse("2026-12-03T12:00:00Z");
        assertEquals("45s", TableView.age("2026-12-03T11:59:15Z", now));
        assertEquals("5m30s", TableView.age("2026-12-03T11:54:30Z", now));
        assertEquals("20m", TableView.age("2026-12-03T11:40:00Z", now));
        assertEquals("5h10m", TableView.age("2026-12-03T06:50:00Z", now));
        assertEquals("40d", TableView.age("2026-10-24T12:00:00Z", now));
        assertEquals("<unknown>", TableView.age("", now));
    }

    @Test
    void theGatewayStreamsAWatchOverPlainHttp() throws Exception {
        node("cp-1", true);
        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
        try {
            HttpWatchGateway gateway = HttpWatchGateway.start(vertx, 0, server.getPort()).toCompletionStage()
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            String base = "http://127.0.0.1:" + gateway.port();
            // an ordinary request passes through
            HttpResponse<String> list = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/nodes")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(List.of("cp-1"), names(JSON.readTree(list.body())));

            // kubectl wait's watch: chunked HTTP, one JSON event per line
            BlockingQueue<String> events = new LinkedBlockingQueue<>();
            http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/api/v1/nodes?allowWatchBookmarks=true&fieldSelector="
                    + encode("metadata.name=cp-1") + "&watch=true")).build(), HttpResponse.BodyHandlers.ofLines())
                    .thenAccept(r -> r.body().forEach(events::add));
            Poll.until(Duration.ofSeconds(30), "the watch to be open", () -> {
                client.nodes().withName("cp-1").edit(n -> new NodeBuilder(n).editMetadata()
                        .addToLabels("touched", Long.toString(System.nanoTime())).endMetadata().build());
                try {
                    String event = events.poll(200, TimeUnit.MILLISECONDS);
                    return event != null && JSON.readTree(event).path("object").path("metadata").path("name")
                            .asString().equals("cp-1");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            gateway.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private JsonNode get(String path, String accept) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url(path))).header("Accept", accept)
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    private static List<String> names(JsonNode list) {
        List<String> names = new ArrayList<>();
        list.path("items").forEach(i -> names.add(i.path("metadata").path("name").asString()));
        return names;
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }

    private void node(String name, boolean ready) {
        int index = client.nodes().list().getItems().size() + 1;
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("node-role.kubernetes.io/" + (name.startsWith("cp") ? "control-plane" : "worker"), "")
                .endMetadata().withNewStatus()
                .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
                .addNewAddress().withType("InternalIP").withAddress("10.5.0." + index).endAddress()
                .withNewNodeInfo().withKubeletVersion("v1.34.1").endNodeInfo().endStatus().build()).create();
    }

    private void pod(String name, String node, String phase) {
        client.pods().inNamespace("apps").resource(new PodBuilder().withNewMetadata().withName(name)
                .withNamespace("apps").endMetadata().withNewSpec().withNodeName(node).addNewContainer().withName("c")
                .withImage("i").endContainer().endSpec().withNewStatus().withPhase(phase).endStatus().build()).create();
    }
}
