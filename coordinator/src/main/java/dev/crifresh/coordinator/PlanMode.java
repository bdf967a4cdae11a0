package dev.crifresh.coordinator;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.gate.GateWiring;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.kube.Fabric8NodeOps;
import dev.crifresh.coordinator.kube.Fabric8PodOps;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.plan.ApiAway;
import dev.crifresh.coordinator.rollout.plan.Decisions;
import dev.crifresh.coordinator.rollout.plan.NoAttestations;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.view.BulkClassify;
import dev.crifresh.coordinator.rollout.view.PodCounts;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Plan mode ({@link Coordinator#plan()}): classifies every selected node and reports what a rollout would do — the
 * decisions, the order, where evicted pods would go and what the gates say now. Reads the cluster, never writes.
 * Runs on {@code context}; blocking Kubernetes calls and the classification go to its worker threads.
 */
final class PlanMode {
    private final Vertx vertx;
    private final Context context;
    private final KubernetesClient client;
    private final CoordinatorSettings settings;
    private final NodeClassifier classifier;
    private final GateWiring gates;
    private final Clock clock;
    private final String apiHost;

    /** @param apiHost the host of the API server URL the coordinator uses, or null */
    PlanMode(Vertx vertx, Context context, KubernetesClient client, CoordinatorSettings settings, NodeClassifier classifier,
             GateWiring gates, Clock clock, String apiHost) {
        this.vertx = vertx;
        this.context = context;
        this.client = client;
        this.settings = settings;
        this.classifier = classifier;
        this.gates = gates;
        this.clock = clock;
        this.apiHost = apiHost;
    }

    /** The plan's report; call on {@code context}. */
    Future<Report> run() {
        NodeOps nodes = new Fabric8NodeOps(context, client, settings.selection().nodeSelector());
        return nodes.list()
                .compose(list -> BulkClassify.classifyAll(context, classifier, list.stream().map(NodeFacts::of).toList(), clock.instant())
                        .compose(classified -> placement(list, classified).map(p -> report(classified, p)))
                        .compose(report -> planGates(list, report)));
    }

    /**
     * Where a rollout would steer evicted pods: the stale taint on every node it would reboot, the fresh
     * schedulable nodes, and the seed when there is none (see {@link EvictionPlacement}); null with
     * action none (nothing is drained).
     */
    private Future<EvictionPlacement> placement(List<Node> nodes, Map<String, Classification> classified) {
        if (settings.limits().action() == Action.NONE) {
            return Future.succeededFuture(null);
        }
        // Config-pending nodes are decided only after the rollout's wait for their config: not placed here.
        List<Classification> decidable = classified.values().stream().filter(c -> c.verdict() != NodeVerdict.CONFIG_PENDING).toList();
        RolloutPlan plan = RolloutPlan.decide(settings.limits().action(), decidable, Map.of(), name -> classified.get(name).node());
        RolloutPlan.Eviction eviction = RolloutPlan.eviction(settings.limits().staleTaint(), plan.reboots(), nodes, plan.fresh());
        Future<Map<String, Integer>> pods = eviction.seedNeeded()
                ? PodCounts.evictable(new Fabric8PodOps(context, client, settings.selection().podFieldSelector()), eviction.toTaint())
                : Future.succeededFuture(Map.of());
        return pods.map(eviction::placement);
    }

    /** What the gates say now about the nodes the plan would reboot (blockers, etcd); waits for nothing. */
    private Future<Report> planGates(List<Node> list, Report report) {
        Gates planGates = gates.build(vertx, context, client, settings.lease().runId(), ProgressListener.NONE);
        List<NodeFacts> all = list.stream().map(NodeFacts::of).toList();
        Set<String> toReboot = report.nodes().stream().filter(n -> n.decision() == Decision.REBOOT)
                .map(NodeReport::name).collect(Collectors.toSet());
        List<NodeFacts> rolled = settings.limits().action() == Action.NONE ? List.of()
                : all.stream().filter(f -> toReboot.contains(f.name())).toList();
        return context.executeBlocking(() -> planCluster(all), false)
                .compose(cluster -> planGates.plan(rolled, cluster).map(notes -> apiAway(report.withGates(notes), rolled, cluster)))
                .eventually(planGates::close);
    }

    /**
     * What a rollout says about a node whose reboot takes the API server away ({@link ApiAway}): refused before any
     * node is touched without {@code --api-outage-budget}, waited out with it.
     */
    private Report apiAway(Report report, List<NodeFacts> rolled, List<NodeFacts> cluster) {
        Map<String, String> says = new HashMap<>();
        RolloutPlan.apiAway(rolled, cluster, apiHost).forEach((name, why) -> says.put(name, settings.lease().apiOutageBudget().isZero()
                ? "a rollout refuses to reboot it: " + ApiAway.refusal(why) : ApiAway.allowed(why, settings.lease().apiOutageBudget())));
        if (says.isEmpty()) {
            return report;
        }
        List<NodeReport> nodes = report.nodes().stream().map(n -> !says.containsKey(n.name()) ? n
                : new NodeReport(n.name(), n.role(), n.verdict(), n.reason(), n.decision(), n.outcome(), n.markerSaysCurrent(),
                        n.markerContradicts(), says.get(n.name()) + "; " + n.detail(), n.action())).toList();
        return new Report(report.result(), nodes, report.summary(), report.rebootOrder(), report.stop(), report.error(),
                report.placement(), report.joinedDuringRun(), report.gates(), report.cluster(), report.warnings());
    }

    /** The etcd gate needs every control plane, also those a node selector leaves out. Blocking. */
    private List<NodeFacts> planCluster(List<NodeFacts> selected) {
        if (settings.selection().nodeSelector() == null) {
            return selected;
        }
        try {
            return client.nodes().list().getItems().stream().map(NodeFacts::of).toList();
        } catch (RuntimeException e) {
            return selected;
        }
    }

    /** Every node's decision, in the order a rollout would reboot them. */
    private Report report(Map<String, Classification> classified, EvictionPlacement placement) {
        List<NodeReport> nodes = new ArrayList<>();
        classified.values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(c -> {
            Decision d = Decisions.of(c, settings.limits().action());
            String leaving = Decisions.leaving(c.node());
            String detail = leaving != null ? leaving + "; " + c.detail() : settings.limits().action() == Action.AUTO && d != Decision.SKIP
                    ? NodeAction.forNode(Action.AUTO, c.node()).why() + "; " + c.detail() : c.detail();
            nodes.add(new NodeReport(c.name(), c.node().role(), c.verdict(), c.reason(), d, leaving != null ? Outcome.LEAVING : Outcome.NOT_ATTEMPTED,
                    c.markerSaysCurrent(), c.markerContradicts(), detail, Decisions.actionWire(c, settings.limits().action(), d)));
        });
        List<String> order = Decisions.order(classified.values());
        // Exit-code parity with rollout: CI can gate on plan when no node attests its boot.
        Optional<NoAttestations> none = NoAttestations.unlessAllowed(settings.limits(), classified.values());
        StopReason stop = none.isPresent() ? StopReason.NO_ATTESTATIONS : StopReason.COMPLETED;
        String error = none.map(n -> "a rollout would stop before the first cordon: " + n.message()).orElse(null);
        if (placement == null) {
            return Report.of(Result.PLANNED, nodes, order, stop, error);
        }
        return Report.of(Result.PLANNED, nodes, placement.order(order), stop, error).withPlacement(placement);
    }
}
