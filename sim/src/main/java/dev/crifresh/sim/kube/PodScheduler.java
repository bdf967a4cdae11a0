package dev.crifresh.sim.kube;

import dev.crifresh.sim.base.SimEvent;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The simulation's ReplicaSet controller and scheduler, for what a drain sets in motion: when an evicted
 * pod owned by a ReplicaSet is gone, a replacement is created and bound to a node the way kube-scheduler
 * would pick one, in its essentials — only Ready nodes that are not cordoned and carry no {@code NoSchedule}
 * or {@code NoExecute} taint the pod does not tolerate; among them, fewest untolerated {@code PreferNoSchedule}
 * taints first, then the fewest pods, then by name. A replacement no node can take waits (Pending, like an
 * unschedulable pod) and is bound as soon as one can. The simulated kubelet ({@link PodStarter}) then
 * starts it with that node's running containerd — so a pod bound to a stale node whose old credential
 * is revoked ends in ImagePullBackOff. Runs on the simulation's pod thread.
 */
public final class PodScheduler {
    /** How often waiting replacements are tried again. */
    static final Duration RETRY = Duration.ofMillis(200);

    private final KubernetesClient client;
    private final ScheduledExecutorService platform;
    private final Consumer<Pod> created;
    private final Consumer<SimEvent> events;
    private final List<Pod> waiting = new ArrayList<>();
    /** Evicted pods gone since the last binding round. */
    private final List<Pod> gone = new ArrayList<>();

    /** @param created a replacement pod was created bound to a node (it may be evicted in turn) */
    public PodScheduler(KubernetesClient client, ScheduledExecutorService platform, Consumer<Pod> created, Consumer<SimEvent> events) {
        this.client = client;
        this.platform = platform;
        this.created = created;
        this.events = events;
    }

    public void start() {
        platform.scheduleWithFixedDelay(this::retryWaiting, RETRY.toMillis(), RETRY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The evicted pod is gone: a ReplicaSet pod gets a replacement. Called on the pod thread; the
     * replacements of pods gone at about the same time are bound together, on one read of the nodes and pods
     * (a drain of many nodes at once would otherwise list the whole cluster once per evicted pod).
     */
    public void evictedPodGone(Pod evicted) {
        if (!ownedByReplicaSet(evicted)) {
            return;
        }
        gone.add(evicted);
        if (gone.size() == 1) {
            platform.execute(this::replaceGone);
        }
    }

    private void replaceGone() {
        List<Pod> evicted = List.copyOf(gone);
        gone.clear();
        List<Pod> replacements = evicted.stream().map(PodScheduler::replacementOf).toList();
        List<Pod> unbound = bindAll(replacements);
        for (int i = 0; i < replacements.size(); i++) {
            if (unbound.contains(replacements.get(i))) {
                waiting.add(replacements.get(i));
                events.accept(new SimEvent(Instant.now(), null, SimEvent.Kind.POD_UNSCHEDULABLE, key(replacements.get(i))
                        + " (replaces " + key(evicted.get(i)) + "): no Ready, schedulable node tolerates it; Pending"));
            }
        }
    }

    /** Replacements waiting for a node, or still to be made. */
    public int waiting() {
        return waiting.size() + gone.size();
    }

    private void retryWaiting() {
        if (waiting.isEmpty()) {
            return;
        }
        try {
            List<Pod> unbound = bindAll(waiting);
            waiting.retainAll(unbound);
        } catch (RuntimeException e) {
            events.accept(new SimEvent(Instant.now(), null, SimEvent.Kind.PLATFORM_ERROR, "scheduler: " + e.getMessage()));
        }
    }

    /** Binds and creates each pod, in order, on the best node for it now; returns those no node can take. */
    private List<Pod> bindAll(List<Pod> pods) {
        List<Node> nodes = client.nodes().list().getItems();
        Map<String, Integer> podsPerNode = new HashMap<>();
        for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
            if (p.getSpec() != null && p.getSpec().getNodeName() != null) {
                podsPerNode.merge(p.getSpec().getNodeName(), 1, Integer::sum);
            }
        }
        List<Pod> unbound = new ArrayList<>();
        for (Pod pod : pods) {
            if (!bind(pod, nodes, podsPerNode)) {
                unbound.add(pod);
            }
        }
        return unbound;
    }

    /** Binds and creates the pod on the best node; false when no node can take it now. */
    private boolean bind(Pod pod, List<Node> nodes, Map<String, Integer> podsPerNode) {
        Optional<Node> best = nodes.stream()
                .filter(n -> feasible(n, pod))
                .min(Comparator.<Node>comparingInt(n -> preferNoScheduleTaints(n, pod))
                        .thenComparingInt(n -> podsPerNode.getOrDefault(n.getMetadata().getName(), 0))
                        .thenComparing(n -> n.getMetadata().getName()));
        if (best.isEmpty()) {
            return false;
        }
        String node = best.get().getMetadata().getName();
        Pod bound = new PodBuilder(pod).editSpec().withNodeName(node).endSpec().build();
        Pod made = client.pods().inNamespace(bound.getMetadata().getNamespace()).resource(bound).create();
        podsPerNode.merge(node, 1, Integer::sum);
        created.accept(made);
        events.accept(new SimEvent(Instant.now(), node, SimEvent.Kind.POD_SCHEDULED, key(made)
                + (preferNoScheduleTaints(best.get(), pod) > 0 ? " (only PreferNoSchedule-tainted nodes left)" : "")));
        return true;
    }

    static boolean feasible(Node node, Pod pod) {
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
            return false;
        }
        boolean ready = node.getStatus() != null && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        if (!ready) {
            return false;
        }
        for (Taint t : taints(node)) {
            boolean hard = "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect());
            if (hard && !tolerated(t, pod)) {
                return false;
            }
        }
        return true;
    }

    static int preferNoScheduleTaints(Node node, Pod pod) {
        return (int) taints(node).stream().filter(t -> "PreferNoSchedule".equals(t.getEffect()) && !tolerated(t, pod)).count();
    }

    private static List<Taint> taints(Node node) {
        return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    }

    static boolean tolerated(Taint taint, Pod pod) {
        List<Toleration> tolerations = pod.getSpec() == null || pod.getSpec().getTolerations() == null
                ? List.of() : pod.getSpec().getTolerations();
        for (Toleration t : tolerations) {
            boolean effect = t.getEffect() == null || t.getEffect().isEmpty() || t.getEffect().equals(taint.getEffect());
            boolean key = t.getKey() == null || t.getKey().isEmpty()
                    ? "Exists".equals(t.getOperator())
                    : t.getKey().equals(taint.getKey())
                            && ("Exists".equals(t.getOperator()) || Objects.equals(t.getValue(), taint.getValue()));
            if (effect && key) {
                return true;
            }
        }
        return false;
    }

    private static boolean ownedByReplicaSet(Pod pod) {
        List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
        return owners != null && owners.stream().anyMatch(o -> "ReplicaSet".equals(o.getKind()));
    }

    /** What the ReplicaSet controller creates: the same template, a new name, unbound, no status. */
    private static Pod replacementOf(Pod evicted) {
        String rs = evicted.getMetadata().getOwnerReferences().stream().filter(o -> "ReplicaSet".equals(o.getKind()))
                .findFirst().map(OwnerReference::getName).orElse("replicaset");
        String suffix = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36, 36L * 36 * 36 * 36 * 36), 36);
        return new PodBuilder()
                .withNewMetadata().withName(rs + "-" + suffix).withNamespace(evicted.getMetadata().getNamespace())
                .withLabels(evicted.getMetadata().getLabels())
                .withOwnerReferences(evicted.getMetadata().getOwnerReferences())
                .endMetadata()
                .withSpec(new PodBuilder(evicted).editSpec().withNodeName(null).endSpec().build().getSpec())
                .build();
    }

    private static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
}
