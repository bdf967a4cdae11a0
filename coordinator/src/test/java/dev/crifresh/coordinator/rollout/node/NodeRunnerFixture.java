package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.gate.NodeGates;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** The fakes a node's runner is tested with: one node w1 in memory, no pods, a host that is also its gates and fence. */
abstract class NodeRunnerFixture {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    final ManualTicker ticker = new ManualTicker();
    final Nodes nodes = new Nodes();
    final Host host = new Host();

    Object sample(Class<?> type) {
        if (type == NodeFacts.class) {
            return NodeFacts.of(nodes.current);
        }
        if (type == Node.class) {
            return nodes.copy();
        }
        if (type == Duration.class) {
            return Duration.ofSeconds(1);
        }
        if (type == EventReason.class) {
            return EventReason.CORDONED;
        }
        if (type == String.class) {
            return "sample";
        }
        return type == List.class ? List.of() : type == Set.class ? Set.of() : null;
    }

    // ---- fakes ---------------------------------------------------------------------------------------------------

    /** One node w1 in memory; JSON Patches applied for the paths the roll writes, {@code test} ops checked (422). */
    final class Nodes implements NodeOps {
        @Override
        public NodeOps gated(WriteGate gate) {
            return this; // in memory, no worker thread: the roll's own fence checks are what the test exercises
        }

        Node current = new NodeBuilder().withNewMetadata().withName("w1").withUid("uid-1").withResourceVersion("1")
                .withAnnotations(new HashMap<>()).endMetadata().withNewSpec().endSpec().withNewStatus().withNewNodeInfo()
                .withBootID("boot-1").endNodeInfo().addNewCondition().withType("Ready").withStatus("True").endCondition()
                .addNewAddress().withType("InternalIP").withAddress("10.0.0.1").endAddress().endStatus().build();
        int gets;
        int patches;
        int refusals;
        int refuseNext;
        int refuseFrom = 1;
        final List<String> ownershipAfterEachPatch = new ArrayList<>();

        void reboot(String boot) {
            current = new NodeBuilder(current).editStatus().editNodeInfo().withBootID(boot).endNodeInfo().endStatus().build();
            bump();
        }

        void attest(String message) {
            current = new NodeBuilder(current).editStatus().addNewCondition().withType("ContainerdConfigFresh").withStatus("True")
                    .withMessage(message).endCondition().endStatus().build();
            bump();
        }

        private void bump() {
            current.getMetadata().setResourceVersion(String.valueOf(Integer.parseInt(current.getMetadata().getResourceVersion()) + 1));
        }

        @Override
        public Future<Node> get(String name) {
            gets++;
            return Future.succeededFuture(copy());
        }

        Node copy() {
            return new NodeBuilder(current).build();
        }

        @Override
        public Future<Node> jsonPatch(String name, String patch) {
            patches++;
            if (patches >= refuseFrom && refuseNext > 0) {
                refuseNext--;
                refusals++;
                return Future.failedFuture(new KubernetesClientException("injected", 409, null));
            }
            Node next = copy();
            Map<String, String> a = new HashMap<>(next.getMetadata().getAnnotations());
            for (JsonNode op : JSON.readTree(patch)) {
                String path = op.get("path").asString();
                String kind = op.get("op").asString();
                if (kind.equals("test") && !op.get("value").asString().equals(read(path))) {
                    refusals++;
                    return Future.failedFuture(new KubernetesClientException("test failed: " + path, 422, null));
                }
                if (path.startsWith("/metadata/annotations/")) {
                    String key = path.substring("/metadata/annotations/".length()).replace("~1", "/").replace("~0", "~");
                    if (kind.equals("remove")) {
                        a.remove(key);
                    } else {
                        a.put(key, op.get("value").asString());
                    }
                } else if (path.equals("/metadata/annotations")) {
                    op.get("value").properties().forEach(e -> a.put(e.getKey(), e.getValue().asString()));
                } else if (path.equals("/spec/unschedulable")) {
                    next.getSpec().setUnschedulable(kind.equals("remove") ? null : op.get("value").asBoolean());
                }
            }
            next.getMetadata().setAnnotations(a);
            current = next;
            bump();
            String ownership = a.get(CrifreshAnnotations.ROLLOUT);
            ownershipAfterEachPatch.add(ownership == null ? null : ownership.substring(ownership.indexOf('/') + 1));
            return Future.succeededFuture(copy());
        }

        private String read(String path) {
            return switch (path) {
                case "/metadata/resourceVersion" -> current.getMetadata().getResourceVersion();
                case "/metadata/uid" -> current.getMetadata().getUid();
                case "/spec/unschedulable" -> String.valueOf(Boolean.TRUE.equals(current.getSpec().getUnschedulable()));
                case "/status/nodeInfo/bootID" -> current.getStatus().getNodeInfo().getBootID();
                default -> current.getMetadata().getAnnotations().get(
                        path.substring("/metadata/annotations/".length()).replace("~1", "/").replace("~0", "~"));
            };
        }

        @Override
        public Future<List<Node>> list() {
            return listAll();
        }

        @Override
        public Future<List<Node>> listAll() {
            return Future.succeededFuture(List.of(copy()));
        }

        @Override
        public Future<Node> mergePatch(String name, String patch) {
            throw new AssertionError("node patches are JSON Patches");
        }

        @Override
        public Future<NodeWatch> watch(NodeEvents events) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Future<NodeWatch> watchAll(NodeEvents events) {
            throw new UnsupportedOperationException();
        }
    }

    /** No pods on the node: a drain ends at once. */
    private static final class NoPods implements PodOps {
        @Override
        public PodOps gated(WriteGate gate) {
            return this; // in memory, no worker thread: the roll's own fence checks are what the test exercises
        }

        @Override
        public Future<List<Pod>> podsOn(String node) {
            return Future.succeededFuture(List.of());
        }

        @Override
        public Future<PodWatch> watchPodsOn(String node, Runnable changed) {
            return Future.succeededFuture(new PodWatch() {
                public List<Pod> pods() {
                    return List.of();
                }

                public void close() {
                }
            });
        }

        @Override
        public Future<Eviction> evict(String namespace, String name) {
            throw new AssertionError("no pod to evict");
        }
    }

    final class Host implements RollHost, NodeGates, Fence {
        final CoordinatorSettings settings = CoordinatorSettings.builder().runId("run-t").build();
        final List<String> lines = new ArrayList<>();
        final List<EventReason> events = new ArrayList<>();
        final List<NodeRunner> finished = new ArrayList<>();
        final List<Promise<Void>> driverCalls = new ArrayList<>();
        final Promise<Void> outageOver = Promise.promise();
        NodeVerdict verdict = NodeVerdict.UNKNOWN;
        boolean mayWrite = true;
        boolean cacheStale;
        Runnable beforeSecondConfirm = () -> { };
        int confirms;

        NodeRunner roll() {
            RollPorts ports = new RollPorts(RollSettings.of(settings), nodes, new NoPods(), this::reboot, this, new ApiRetry(ticker, this), ticker,
                    Clock.systemUTC());
            return new NodeRunner(ports, this, NodeFacts.of(nodes.current), 1, 1, null);
        }

        /** The driver's answer stays open until the test completes it. */
        private Future<Void> reboot(Node node) {
            Promise<Void> p = Promise.promise();
            driverCalls.add(p);
            return p.future();
        }

        public NodeGates gates() {
            return this;
        }

        public Node cached(String name) {
            if (cacheStale) {
                cacheStale = false;
                Node stale = nodes.copy();
                stale.getMetadata().setResourceVersion("0");
                return stale;
            }
            return nodes.copy();
        }

        public NodeFacts facts(String name) {
            return NodeFacts.of(nodes.current);
        }

        public Classification classifyNow(String name) {
            return new Classification(facts(name), verdict, "Because", "the detail", false, null);
        }

        public boolean stopping() {
            return false;
        }

        public Future<List<NodeFacts>> freshNodeList() {
            return nodes.listAll().map(NodeFacts::all);
        }

        public int budget() {
            return 1;
        }

        public Set<String> inFlight() {
            return Set.of("w1");
        }

        public void progress(NodeRunner roll, String text) {
            lines.add(text);
        }

        public void event(String node, EventReason reason, String message) {
            events.add(reason);
        }

        public void rebootRequested(NodeRunner roll) {
        }

        public void finished(NodeRunner roll) {
            finished.add(roll);
        }

        // NodeGates: every gate passes at once

        public Future<GateVerdict> beforeTakeDown(NodeFacts node, List<NodeFacts> cluster, BooleanSupplier abandoned, Consumer<String> say) {
            return Future.succeededFuture(GateVerdict.passed("no blockers configured"));
        }

        public Future<GateVerdict> afterReturn(NodeFacts node, List<NodeFacts> cluster, BooleanSupplier abandoned, Consumer<String> say) {
            return Future.succeededFuture(GateVerdict.passed(""));
        }

        // Fence

        public boolean mayWrite() {
            return mayWrite;
        }

        public Future<Void> whenMayWrite() {
            return mayWrite ? Future.succeededFuture() : outageOver.future();
        }

        public Future<Void> confirm() {
            if (++confirms == 2) {
                beforeSecondConfirm.run();
            }
            return mayWrite ? Future.succeededFuture() : Future.failedFuture(new GuardedPatch.Fenced());
        }

        public int lapses() {
            return 0;
        }

        @Override
        public List<NodeFacts> clusterView() {
            return List.of();
        }

        @Override
        public void progress(NodeRunner roll, ProgressListener.Level level, String text) {
            progress(roll, text);
        }

        @Override
        public Future<Void> silence(String node) {
            return Future.succeededFuture();
        }
    }
}
