package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.Outcome;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What a run does with each node, decided once on the classifications (pure; the {@code plan} command and the
 * {@code rollout} both use it):
 * <ol>
 *   <li>a node deleted since it was classified is reported deleted;</li>
 *   <li>a node the cluster autoscaler is removing ({@link Decisions#leaving}) is not rolled: reported leaving;</li>
 *   <li>a node an earlier run left in phase rebooting or verifying is <b>resumed</b> (only waited for, outside
 *       the budget) when its action is reboot;</li>
 *   <li>any other node an earlier run left owned is a <b>leftover</b>: released first, then decided like the
 *       others;</li>
 *   <li>fresh now → <b>skip</b> (became-fresh when it was config-pending at the start);</li>
 *   <li>stale or unknown → <b>reboot</b> when its action ({@code --action}, per node with auto) is reboot, else
 *       <b>wait</b> for it to restart containerd itself;</li>
 *   <li>order: {@link RolloutOrder}; the nodes to taint are the reboots not resumed; where their evicted pods
 *       land: {@link #eviction}.</li>
 * </ol>
 *
 * @param nodes      each classified node's step, in the order of the classifications
 * @param reboots    the nodes to reboot or resume, in rollout order
 * @param waits      the nodes waited for (action none or auto), in rollout order
 * @param leftovers  an earlier run's nodes to release before anything else touches them
 * @param fresh      the nodes fresh at the decision: where evicted pods should land
 */
public record RolloutPlan(List<NodePlan> nodes, List<NodeFacts> reboots, List<NodeFacts> waits, List<NodeFacts> leftovers,
                   Set<String> fresh) {

    /** What the plan does with one node. */
    public enum Step { DELETED, LEAVING, RESUME, SKIP, BECAME_FRESH, REBOOT, WAIT }

    /**
     * One node's step, with what the report records for it now.
     *
     * @param action  the node's resolved action (null when deleted)
     * @param outcome recorded at once (skip, became-fresh, deleted), else null
     * @param detail  the outcome's detail, or a note on a reboot (its config turned up), or null
     */
    public record NodePlan(String name, Step step, Decision decision, NodeAction action, Outcome outcome, String detail) {
        /** Whether the run announces the node's action (action auto, a node it reboots or waits for). */
        public boolean announced() {
            return step == Step.REBOOT || step == Step.WAIT;
        }
    }

    /**
     * @param first  each node's classification at the start (its config wait included)
     * @param latest the latest classification of each node (a node missing here keeps its first)
     * @param facts  each node's latest state, null once deleted
     */
    public static RolloutPlan decide(Action action, Collection<Classification> first, Map<String, Classification> latest,
                              Function<String, NodeFacts> facts) {
        List<NodePlan> nodes = new ArrayList<>();
        List<NodeFacts> reboots = new ArrayList<>();
        List<NodeFacts> waits = new ArrayList<>();
        List<NodeFacts> leftovers = new ArrayList<>();
        Set<String> fresh = new TreeSet<>();
        for (Classification start : first) {
            String name = start.name();
            NodeFacts f = facts.apply(name);
            if (f == null) {
                nodes.add(new NodePlan(name, Step.DELETED, null, null, Outcome.DELETED, "the node was deleted during the run"));
                continue;
            }
            String leaving = Decisions.leaving(f);
            if (leaving != null) {
                nodes.add(new NodePlan(name, Step.LEAVING, Decision.SKIP, null, Outcome.LEAVING, leaving));
                continue;
            }
            Classification now = latest.getOrDefault(name, start);
            NodeAction resolved = NodeAction.forNode(action, f);
            boolean rebootIt = resolved.action() == Action.REBOOT;
            if (resumed(f) && rebootIt) {
                nodes.add(new NodePlan(name, Step.RESUME, Decision.REBOOT, resolved, null, null));
                reboots.add(f);
                continue;
            }
            if (Decisions.leftover(f) != null) {
                leftovers.add(f);
            }
            boolean wasPending = start.verdict() == NodeVerdict.CONFIG_PENDING;
            if (now.verdict() == NodeVerdict.FRESH) {
                fresh.add(name);
                nodes.add(wasPending
                        ? new NodePlan(name, Step.BECAME_FRESH, Decision.WAIT, resolved, Outcome.BECAME_FRESH,
                                "the config now holds the desired credential; " + now.detail())
                        : new NodePlan(name, Step.SKIP, Decision.SKIP, resolved, Outcome.SKIPPED, now.detail()));
            } else if (rebootIt) {
                nodes.add(new NodePlan(name, Step.REBOOT, Decision.REBOOT, resolved, null, wasPending
                        ? "the config now holds the desired credential, containerd is " + now.verdict().wire() : null));
                reboots.add(f);
            } else {
                nodes.add(new NodePlan(name, Step.WAIT, Decision.WAIT, resolved, null, null));
                waits.add(f);
            }
        }
        return new RolloutPlan(nodes, RolloutOrder.order(reboots), RolloutOrder.order(waits), leftovers, fresh);
    }

    /** Whether an earlier run left the node in a phase where its reboot may be under way or done. */
    public static boolean resumed(NodeFacts f) {
        Ownership o = Decisions.leftover(f);
        return o != null && o.phase().mayHaveRebooted();
    }

    /** The nodes this run reboots itself (not those it resumes), in order: checked, tainted, drained. */
    public static List<NodeFacts> rebootedHere(List<NodeFacts> reboots) {
        return reboots.stream().filter(f -> !resumed(f)).toList();
    }

    /**
     * Each node rebooted here whose reboot takes the API server away, with why ({@link ApiAway}), in order; nodes an
     * earlier run may already have rebooted are only waited for and not checked.
     */
    public static Map<String, String> apiAway(List<NodeFacts> reboots, Collection<NodeFacts> cluster, String apiHost) {
        Map<String, String> away = new LinkedHashMap<>();
        for (NodeFacts f : rebootedHere(reboots)) {
            String why = ApiAway.why(f, cluster, apiHost);
            if (why != null) {
                away.put(f.name(), why);
            }
        }
        return away;
    }

    /** Whether a control plane is among the reboots (the etcd gate is then needed). */
    public boolean controlPlanes() {
        return reboots.stream().anyMatch(f -> f.role() == Role.CONTROL_PLANE);
    }

    /** The fresh nodes the run skips (their pull proof runs before any reboot). */
    public List<NodeFacts> freshSkipped(Function<String, NodeFacts> facts) {
        return nodes.stream().filter(n -> n.step() == Step.SKIP || n.step() == Step.BECAME_FRESH)
                .map(n -> facts.apply(n.name())).toList();
    }

    /** With action auto: the leftovers among the nodes waited for (released before the wait). */
    public List<NodeFacts> waitedLeftovers() {
        return leftovers.stream().filter(waits::contains).toList();
    }

    /** With action auto: the leftovers not waited for (released after the wait, before the reboots). */
    public List<NodeFacts> deferredLeftovers() {
        return leftovers.stream().filter(f -> !waits.contains(f)).toList();
    }

    /**
     * Where evicted pods would land when the reboots begin (pure, before the pod counts are read).
     *
     * @param toTaint          the nodes rebooted here, in order
     * @param freshSchedulable fresh nodes that can take evicted pods now
     * @param seedNeeded       whether a seed must be chosen (read the pod counts of {@code toTaint})
     */
    public record Eviction(StaleTaint taint, List<NodeFacts> toTaint, List<String> freshSchedulable, boolean seedNeeded) {
        /** The names to taint, in order. */
        public List<String> names() {
            return toTaint.stream().map(NodeFacts::name).toList();
        }

        /** The placement, given the evictable pod counts of {@code toTaint} (empty unless a seed is needed); null with nothing to taint. */
        public EvictionPlacement placement(Map<String, Integer> podCounts) {
            if (toTaint.isEmpty()) {
                return null;
            }
            if (!taint.enabled()) {
                return EvictionPlacement.off(freshSchedulable);
            }
            String seed = seedNeeded ? EvictionPlacement.seed(toTaint, podCounts) : null;
            return new EvictionPlacement(taint, names(), freshSchedulable, seed, seed == null ? 0 : podCounts.getOrDefault(seed, 0));
        }
    }

    /**
     * @param reboots  the plan's reboots (possibly re-read: action auto reboots after its wait)
     * @param selected every selected node's latest state
     * @param fresh    the nodes fresh by now
     */
    public static Eviction eviction(StaleTaint taint, List<NodeFacts> reboots, Collection<Node> selected, Set<String> fresh) {
        List<NodeFacts> toTaint = rebootedHere(reboots);
        List<String> freshSchedulable = EvictionPlacement.freshSchedulable(selected, fresh);
        return new Eviction(taint, toTaint, freshSchedulable, EvictionPlacement.needsSeed(taint, toTaint, freshSchedulable));
    }
}
