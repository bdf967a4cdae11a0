package dev.crifresh.sim.serve;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.scenario.AgentMode;
import dev.crifresh.sim.scenario.Credential;
import dev.crifresh.sim.world.SimulatedWorld;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code serve} command's control endpoint, answered by the simulated cluster's API server before
 * the Kubernetes API (no real API server has these paths, so nothing a client of the API sends can
 * reach them by accident):
 *
 * <ul>
 *   <li>{@code POST /crifresh-sim/v1/nodes/NAME/reboot}: what {@code talosctl reboot --wait=false} is on
 *   Talos: 202 once the request was taken, 404 for an unknown node;</li>
 *   <li>{@code POST /crifresh-sim/v1/nodes/NAME/hang}: the node's agent hangs (it writes nothing more, its
 *   last condition stays): 202 once the request was taken, 404 for an unknown node, 409 when no agent runs
 *   there;</li>
 *   <li>{@code POST /crifresh-sim/v1/rotate} with {@code {"username":…,"password":…}}: the platform
 *   renders a new credential on every node; 202 with the nodes whose running agent will re-attest;</li>
 *   <li>{@code GET /crifresh-sim/v1/nodes}: each node's state and agent;</li>
 *   <li>{@code GET /crifresh-sim/v1/watches}: how many watch requests {@code kubectl} has sent so far
 *   ({@code {"kubectlWatches": n}}), so that a walkthrough can tell that {@code kubectl wait} is watching.</li>
 * </ul>
 *
 * Answers come from the API server's event loop, which the platform thread's own API calls need, so
 * every action is handed to the platform without waiting for it.
 */
final class ControlRoutes extends Dispatcher {
    static final String PREFIX = "/crifresh-sim/v1/";
    private static final Pattern REBOOT = Pattern.compile("/crifresh-sim/v1/nodes/([^/?]+)/reboot");
    private static final Pattern HANG = Pattern.compile("/crifresh-sim/v1/nodes/([^/?]+)/hang");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Dispatcher api;
    private volatile SimulatedWorld cluster;
    private volatile Consumer<Credential> rotated = c -> { };
    private final AtomicInteger kubectlWatches = new AtomicInteger();

    ControlRoutes(Dispatcher api) {
        this.api = api;
    }

    /**
     * Starts answering control requests (until then they get 503).
     *
     * @param rotated told of a rotation's new credential before the request is answered
     */
    void serve(SimulatedWorld cluster, Consumer<Credential> rotated) {
        this.rotated = rotated;
        this.cluster = cluster;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String path = request.getPath();
        if (path == null || !path.startsWith(PREFIX)) {
            String agent = request.getHeader("User-Agent");
            if (path != null && path.contains("watch=true") && agent != null && agent.startsWith("kubectl")) {
                kubectlWatches.incrementAndGet();
            }
            return api.dispatch(request);
        }
        SimulatedWorld served = cluster;
        if (served == null) {
            return json(503, error("the simulated cluster is still starting"));
        }
        String method = request.getMethod();
        Matcher reboot = REBOOT.matcher(path);
        if (reboot.matches() && "POST".equals(method)) {
            return reboot(served, reboot.group(1));
        }
        Matcher hang = HANG.matcher(path);
        if (hang.matches() && "POST".equals(method)) {
            return hang(served, hang.group(1));
        }
        if (path.equals(PREFIX + "rotate") && "POST".equals(method)) {
            return rotate(served, request.getUtf8Body(), rotated);
        }
        if (path.equals(PREFIX + "nodes") && "GET".equals(method)) {
            return json(200, nodes(served));
        }
        if (path.equals(PREFIX + "watches") && "GET".equals(method)) {
            ObjectNode body = JSON.createObjectNode();
            body.put("kubectlWatches", kubectlWatches.get());
            return json(200, body);
        }
        return json(404, error("no such control request: " + method + " " + path));
    }

    private static MockResponse reboot(SimulatedWorld cluster, String name) {
        try {
            cluster.requestReboot(name);
        } catch (IllegalArgumentException e) {
            return json(404, error("no simulated node " + name));
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("node", name);
        body.put("accepted", true);
        return json(202, body);
    }

    private static MockResponse hang(SimulatedWorld cluster, String name) {
        boolean hanging;
        try {
            hanging = cluster.hangAgent(name);
        } catch (IllegalArgumentException e) {
            return json(404, error("no simulated node " + name));
        }
        if (!hanging) {
            return json(409, error("no agent runs on " + name + " (its node is down, or it has none, or it hung already)"));
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("node", name);
        body.put("hung", true);
        return json(202, body);
    }

    private static MockResponse rotate(SimulatedWorld cluster, String body, Consumer<Credential> rotated) {
        Credential next;
        try {
            JsonNode json = JSON.readTree(body == null ? "" : body);
            String username = json.path("username").asString("");
            String password = json.path("password").asString("");
            if (username.isEmpty() || password.isEmpty()) {
                return json(400, error("a rotation needs a non-empty username and password"));
            }
            next = new Credential(username, password);
        } catch (JacksonException e) {
            return json(400, error("the rotation request is not JSON"));
        }
        List<SimulatedNode> nodes = List.copyOf(cluster.nodes());
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode attesting = answer.putArray("attesting");
        // before the renders start: a node rendered already would no longer look as if it will change
        for (SimulatedNode node : nodes) {
            if (node.state() == SimulatedNode.State.UP && node.agentMode() == AgentMode.RUNNING
                    && !next.equals(node.credential())) {
                attesting.add(node.name());
            }
        }
        cluster.rotateLater(next);
        try {
            rotated.accept(next);
        } catch (RuntimeException e) {
            return json(500, error("rotated, but: " + e.getMessage()));
        }
        answer.put("nodes", nodes.size());
        return json(202, answer);
    }

    private static ObjectNode nodes(SimulatedWorld cluster) {
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode items = answer.putArray("nodes");
        for (SimulatedNode node : cluster.nodes()) {
            ObjectNode item = items.addObject();
            item.put("name", node.name());
            item.put("state", node.state().name().toLowerCase(Locale.ROOT));
            item.put("agent", node.agentHung() ? "hung" : node.agentMode().wire());
            item.put("boots", node.boots());
            item.put("attestsDesired", attestsDesired(cluster, node));
        }
        return answer;
    }

    /** Whether the node's running agent last published the desired credential's fingerprint. */
    private static boolean attestsDesired(SimulatedWorld cluster, SimulatedNode node) {
        Credential desired = cluster.desiredCredential();
        String fingerprint = CredentialFingerprint.of(cluster.keys().fingerprintKey(),
                new RegistryAuth(cluster.scenario().registry(), desired.username(), desired.password(), ""));
        return node.agentRuntime().flatMap(AgentRuntime::published)
                .map(p -> p.claims().registries().containsValue(fingerprint)).orElse(false);
    }

    private static ObjectNode error(String message) {
        ObjectNode body = JSON.createObjectNode();
        body.put("error", message);
        return body;
    }

    private static MockResponse json(int code, ObjectNode body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(body.toString());
    }

    @Override
    public void shutdown() {
        api.shutdown();
    }

    @Override
    public void releaseResources() {
        api.releaseResources();
    }
}
