package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.RunLimits;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.kube.NodePatches;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.rollout.node.RollPorts;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.observe.StaleNodeTaints;
import dev.crifresh.coordinator.rollout.plan.ApiAway;
import dev.crifresh.coordinator.rollout.plan.NoAttestations;
import dev.crifresh.coordinator.rollout.plan.NotRolled;
import dev.crifresh.coordinator.rollout.plan.RolloutOrder;
import dev.crifresh.coordinator.rollout.plan.RolloutPlan;
import dev.crifresh.coordinator.rollout.view.NodeView;
import dev.crifresh.coordinator.rollout.view.PodCounts;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.StopReason;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The run's pre-flight before the first node is touched, each answered as a {@link RunInput}:
 * <ol>
 *   <li>{@link #gates}: no selected node attesting its boot stops the run ({@link NoAttestations}, exit 6); else the gates start and the skipped nodes' read-only pull proof runs.</li>
 *   <li>{@link #check}: a reboot that takes the API server away ({@link ApiAway}) is refused unless
 *       {@code --api-outage-budget} allows it; then the driver checks every node it will reboot ({@link DriverCheck}).
 *       Nodes an earlier run may already have rebooted are only waited for and not checked.</li>
 *   <li>{@link #release}: an earlier run's annotations are dropped from nodes it had not rebooted, those it
 *       cordoned uncordoned — each a claim (the Lease read first) guarded by the ownership this run decided on.</li>
 *   <li>{@link #place}: the nodes it leaves alone ({@link NotRolled}: its own node, a drain that would lose pods) are
 *       reported failed and dropped; the stale nodes rebooted here are tainted, an earlier run's taints dropped from the
 *       others, and with no fresh capacity the seed moved to the front ({@link RolloutPlan#eviction}).</li>
 * </ol>
 * Called on the run's context.
 */
final class RunPreflight {
    /**
     * What the pre-flight reads of the settings.
     *
     * @param apiOutageBudget {@code --api-outage-budget}: how long a reboot may take the API server away
     * @param apiHost         the host of the API server URL this run uses (to tell such a reboot), or null
     */
    record Rules(RunLimits limits, Duration apiOutageBudget, String apiHost) {
    }

    private final Context context;
    private final Rules rules;
    private final RebootDriver driver;
    private final RollPorts ports;
    private final NodeView view;
    private final RunResults results;
    private final StaleNodeTaints taints;
    private final Consumer<RunEvent> observer;

    RunPreflight(Context context, Rules rules, RebootDriver driver, RollPorts ports, NodeView view, RunResults results,
                 StaleNodeTaints taints, Consumer<RunEvent> observer) {
        this.context = context;
        this.rules = rules;
        this.driver = driver;
        this.ports = ports;
        this.view = view;
        this.results = results;
        this.taints = taints;
        this.observer = observer;
    }

    /**
     * First, with no selected node attesting its current boot ({@link NoAttestations}), the run stops before the gates
     * start and before any node is touched, unless {@code --allow-no-attestations}. Then the gates start; a node
     * skipped as fresh that fails its read-only pull proof stops the run before any reboot.
     */
    Future<RunInput> gates(Gates gates, RolloutPlan plan) {
        Optional<NoAttestations> none = NoAttestations.unlessAllowed(rules.limits(), results.initial());
        if (none.isPresent()) {
            return Future.succeededFuture(new RunInput.NoAttestationsFound(none.get()));
        }
        return gates.start(plan.controlPlanes()).compose(v -> gates.proveSkipped(plan.freshSkipped(view::facts))).transform(ar -> {
            if (ar.succeeded() && ar.result().values().stream().allMatch(GateVerdict::pass)) {
                return Future.succeededFuture(new RunInput.GatesPassed(plan));
            }
            Map<String, String> failed = new LinkedHashMap<>();
            if (ar.succeeded()) {
                ar.result().forEach((name, verdict) -> {
                    if (!verdict.pass()) {
                        failed.put(name, verdict.detail());
                    }
                });
            }
            return Future.succeededFuture(new RunInput.ProofsFailed(failed, ar.failed() ? ErrorText.message(ar.cause()) : null));
        });
    }

    /** The API-server rule, then the driver's check; answers {@link RunInput.PreflightRefused} or {@link RunInput.Prechecked}. */
    Future<RunInput> check(RunEffect.Preflight p) {
        List<NodeFacts> reboots = p.reboots();
        if (p.reread()) {
            reboots = RolloutOrder.order(reboots.stream().filter(f -> view.has(f.name())).map(f -> view.facts(f.name())).toList());
        }
        ApiAwayRuling ruling = apiAway(RolloutPlan.apiAway(reboots, view.safetyView(), rules.apiHost()), rules.apiOutageBudget());
        ruling.allowed().forEach((name, why) -> observer.accept(new RunEvent.ApiOutageAllowed(name, why)));
        Map<String, String> refused = ruling.refused();
        if (!refused.isEmpty()) {
            return Future.succeededFuture(new RunInput.PreflightRefused(refused));
        }
        Map<String, Node> toCheck = new LinkedHashMap<>();
        RolloutPlan.rebootedHere(reboots).forEach(f -> toCheck.put(f.name(), view.raw(f.name())));
        List<NodeFacts> ordered = reboots;
        return DriverCheck.problems(context, driver, toCheck, view.nodes(results.names()))
                .otherwise(e -> Map.of("*", ErrorText.message(e)))
                .map(problems -> new RunInput.Prechecked(ordered, p.leftovers(), problems, results.names()));
    }

    /** Releases an earlier run's leftovers; answers {@link RunInput.Released} (its failure, if any). */
    Future<RunInput> release(RunEffect.Release r) {
        List<Future<Node>> patches = new ArrayList<>();
        for (NodeFacts f : r.leftovers()) {
            String seen = f.annotation(CrifreshAnnotations.ROLLOUT);
            observer.accept(new RunEvent.LeftoverReleased(f.name(), "true".equals(f.annotation(CrifreshAnnotations.CORDONED))));
            patches.add(GuardedPatch.claim(ports, f.name(), node -> releasing(f.name(), seen, node)));
        }
        return Future.join(patches).<RunInput>map(v -> new RunInput.Released(r.then(), r.nodes(), r.next(), null))
                .otherwise(e -> new RunInput.Released(r.then(), r.nodes(), r.next(), ErrorText.message(e)));
    }

    /** Each reboot that takes the API server away, refused (no budget) or allowed with what the run says. */
    record ApiAwayRuling(Map<String, String> refused, Map<String, String> allowed) {
    }

    /** The API-server rule: with a zero {@code --api-outage-budget} every such reboot is refused, else allowed. Pure. */
    static ApiAwayRuling apiAway(Map<String, String> away, Duration budget) {
        Map<String, String> refused = new LinkedHashMap<>();
        Map<String, String> allowed = new LinkedHashMap<>();
        away.forEach((name, why) -> {
            if (budget.isZero()) {
                refused.put(name, ApiAway.refusal(why));
            } else {
                allowed.put(name, ApiAway.allowed(why, budget));
            }
        });
        return new ApiAwayRuling(refused, allowed);
    }

    /**
     * Releasing an earlier run's leftover, decided on the node as read now: gone or no longer owned — skip; owned by
     * another run than the one seen at the decision — refuse; else the release patch (uncordoned only if that run
     * cordoned it). Pure.
     */
    static GuardedPatch.Step releasing(String name, String seen, Node node) {
        if (node == null) {
            return new GuardedPatch.Skip();
        }
        NodeFacts now = NodeFacts.of(node);
        String owner = now.annotation(CrifreshAnnotations.ROLLOUT);
        if (owner == null) {
            return new GuardedPatch.Skip();
        }
        if (!owner.equals(seen)) {
            return new GuardedPatch.Refuse(name + " is now owned by '" + owner + "'");
        }
        return new GuardedPatch.Patch(NodePatches.release(node, "true".equals(now.annotation(CrifreshAnnotations.CORDONED))));
    }

    /**
     * Taints every stale node this run will reboot, drops an earlier run's taints from the others and — when no fresh
     * node can take evicted pods — moves the seed to the front; answers {@link RunInput.Placed}. Never fails: a taint
     * is best effort.
     *
     * @param fresh the nodes fresh by now: where evicted pods should land
     * @param over  whether the run ended meanwhile: then nothing is tainted (its end already took the taints off)
     */
    Future<RunInput> place(List<NodeFacts> all, Set<String> fresh, BooleanSupplier over) {
        return notRolled(all).compose(skip -> {
            List<NodeFacts> ordered = all.stream().filter(f -> !skip.containsKey(f.name())).toList();
            skip.forEach((name, why) -> {
                results.ended(name, Outcome.FAILED, why);
                results.failAtEnd(StopReason.NODE_FAILED, name + " was not rolled: " + why.replaceFirst("^not rolled: ", ""));
                observer.accept(new RunEvent.NotRolled(name, why));
            });
            return placeRolled(ordered, fresh, over);
        });
    }

    /**
     * The nodes rebooted here that the run leaves alone ({@link NotRolled}): the coordinator's own node, and nodes whose
     * drain would lose pods. Their pods are listed once, now; a node whose pods cannot be listed is rolled (its drain
     * applies the same rules).
     */
    private Future<Map<String, String>> notRolled(List<NodeFacts> ordered) {
        List<NodeFacts> here = RolloutPlan.rebootedHere(ordered);
        Map<String, List<Pod>> pods = new ConcurrentHashMap<>();
        List<Future<Void>> lists = new ArrayList<>();
        for (NodeFacts f : here) {
            lists.add(ports.pods().podsOn(f.name()).map(list -> {
                pods.put(f.name(), list);
                return null;
            }));
        }
        return Future.join(lists).otherwiseEmpty().map(v -> NotRolled.decide(here, pods, rules.limits().drain()));
    }

    private Future<RunInput> placeRolled(List<NodeFacts> ordered, Set<String> fresh, BooleanSupplier over) {
        RolloutPlan.Eviction eviction = RolloutPlan.eviction(rules.limits().staleTaint(), ordered, view.nodes(results.names()), fresh);
        Future<Map<String, Integer>> counts = eviction.seedNeeded() ? PodCounts.evictable(ports.pods(), eviction.toTaint())
                : Future.succeededFuture(Map.of());
        int budget = rules.limits().budget().budget(results.size());
        return counts.otherwise(Map.of()).compose(podCounts -> {
            if (over.getAsBoolean()) {
                return Future.succeededFuture(new RunInput.Placed(ordered, budget));
            }
            List<String> names = eviction.names();
            results.placed(eviction.placement(podCounts));
            if (results.placement() != null) {
                observer.accept(new RunEvent.Placed(results.placement()));
            }
            String seed = results.placement() == null ? null : results.placement().seed();
            List<Node> leftovers = view.nodes().stream()
                    .filter(n -> taints.leftover(n) && !names.contains(n.getMetadata().getName())).toList();
            return taints.untaintAll(leftovers).compose(v -> taints.taint(names)).map(v -> {
                List<NodeFacts> seeded = new ArrayList<>(ordered);
                if (seed != null) {
                    seeded.sort(Comparator.comparing(f -> !f.name().equals(seed)));
                }
                return new RunInput.Placed(seeded, budget);
            });
        });
    }
}
