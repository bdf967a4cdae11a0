package dev.crifresh.agent.testing;

import dev.crifresh.agent.kube.KubernetesClients;
import dev.crifresh.mockapi.CrudApiServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;

/**
 * fabric8's mock API server in CRUD mode (real HTTP, real watches; the project's watch-safe dispatcher,
 * answering failed JSON Patch tests with 422) that can be stopped and started again on the same port
 * with its stored objects intact, plus a client on a shared Vert.x.
 */
public final class MockApi implements AutoCloseable {
    private final Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
    private final RestartableDispatcher dispatcher = new RestartableDispatcher(expectations);
    private KubernetesMockServer server;
    private final int port;
    private final KubernetesClient client;

    /** The bearer token of {@link #client()}, always accepted by {@link #acceptOnly(Set)}. */
    public static final String ADMIN_TOKEN = "mock-admin-token";

    public MockApi(Vertx vertx) {
        server = newServer();
        server.init();
        port = server.getPort();
        try (NamespacedKubernetesClient bootstrap = server.createClient()) {
            client = KubernetesClients.create(vertx,
                    new ConfigBuilder(bootstrap.getConfiguration()).withOauthToken(ADMIN_TOKEN).build());
        }
    }

    public int port() {
        return port;
    }

    /**
     * Authenticates from now on, as kube-apiserver does: a request without one of {@code tokens} (or
     * {@link #ADMIN_TOKEN}) is answered 401.
     */
    public void acceptOnly(Set<String> tokens) {
        Set<String> valid = new HashSet<>(tokens);
        valid.add(ADMIN_TOKEN);
        dispatcher.acceptOnly(valid);
    }

    /** Every request so far: method, path, bearer token. */
    public List<RestartableDispatcher.Seen> requests() {
        return dispatcher.seen();
    }

    public KubernetesClient client() {
        return client;
    }

    /** Stops answering (connections are refused) until {@link #restart()}. */
    public void stop() {
        server.destroy();
    }

    /** Listens again on the same port, with the same stored objects. */
    public void restart() throws Exception {
        server = newServer();
        server.init(InetAddress.getByName("localhost"), port);
    }

    /** A Node as kubelet registers it: a UID, a boot id and kubelet's Ready condition. */
    public Node createNode(String name, String bootId) {
        Node node = new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withNewNodeInfo().withBootID(bootId).endNodeInfo()
                .withConditions(kubeletReady()).endStatus().build();
        client.nodes().resource(node).create();
        Node created = client.nodes().withName(name).get();
        if (created.getStatus() == null || created.getStatus().getConditions().isEmpty()) {
            created.setStatus(node.getStatus());
            client.nodes().resource(created).updateStatus();
        }
        return client.nodes().withName(name).get();
    }

    public static NodeCondition kubeletReady() {
        return new NodeConditionBuilder().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("kubelet is posting ready status").withLastHeartbeatTime("2025-03-01T10:00:00Z")
                .withLastTransitionTime("2025-03-01T09:00:00Z").build();
    }

    public List<NodeCondition> conditions(String name) {
        Node n = client.nodes().withName(name).get();
        return n == null || n.getStatus() == null ? List.of() : n.getStatus().getConditions();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
        dispatcher.shutDownForGood();
    }

    private KubernetesMockServer newServer() {
        return CrudApiServer.crud(expectations, dispatcher);
    }
}
