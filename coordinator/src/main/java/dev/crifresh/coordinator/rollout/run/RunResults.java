package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.gate.GateNote;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import dev.crifresh.coordinator.report.Decision;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.rollout.node.NodeRunner;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What the run will report: every node it classified (at the start, or when it joined), what it recorded of each
 * outside a node's roll, the order reboots were requested in, and where evicted pods landed. Used on the run's
 * context only.
 */
final class RunResults {
    private final Map<String, Classification> initial = new TreeMap<>();
    private final Map<String, NodeResult> results = new HashMap<>();
    private final List<String> rebootOrder = new ArrayList<>();
    private EvictionPlacement placement;
    /** Failures that do not stop the run but fail it once everything else is done (reason, why), in order. */
    private final List<Map.Entry<StopReason, String>> deferred = new ArrayList<>();

    /** A node classified at the start, or decided after it joined. */
    void classified(Classification c) {
        initial.put(c.name(), c);
    }

    boolean known(String name) {
        return initial.containsKey(name);
    }

    Classification initial(String name) {
        return initial.get(name);
    }

    Collection<Classification> initial() {
        return initial.values();
    }

    List<String> names() {
        return List.copyOf(initial.keySet());
    }

    int size() {
        return initial.size();
    }

    void record(RunEffect.NodeRecord r) {
        NodeResult now = results.getOrDefault(r.node(), NodeResult.NONE);
        if (r.decision() != null) {
            now = now.decided(r.decision());
        }
        if (r.outcome() != null) {
            now = now.ended(r.outcome(), r.detail());
        } else if (r.detail() != null) {
            now = now.noted(r.detail());
        }
        results.put(r.node(), now);
    }

    void decided(String name, Decision decision) {
        record(new RunEffect.NodeRecord(name, decision, null, null));
    }

    void ended(String name, Outcome outcome, String detail) {
        record(new RunEffect.NodeRecord(name, null, outcome, detail));
    }

    /** The node's reboot was requested (or is awaited): its place in the report's order. */
    void rebootOrdered(String name) {
        if (!rebootOrder.contains(name)) {
            rebootOrder.add(name);
        }
    }

    /**
     * The run goes on, but ends failed for this: a node left stale on purpose (not drainable, the coordinator's own)
     * or a node that joined with the old credential. The highest exit code among them wins.
     */
    void failAtEnd(StopReason reason, String why) {
        deferred.add(Map.entry(reason, why));
    }

    void placed(EvictionPlacement placement) {
        this.placement = placement;
    }

    EvictionPlacement placement() {
        return placement;
    }

    /** The run's report: a node's finished roll wins over what the run recorded ({@link NodeResult#report}). */
    Report report(Action action, Function<String, NodeRunner> rolls, RunStep.Stop stop, List<String> joined, List<GateNote> gates) {
        List<NodeReport> nodes = new ArrayList<>();
        for (Classification c : initial.values()) {
            nodes.add(results.getOrDefault(c.name(), NodeResult.NONE).report(c, action, rolls.apply(c.name()), stop != null));
        }
        StopReason reason = stop == null ? StopReason.COMPLETED : stop.reason();
        String why = stop == null ? null : stop.why();
        if (stop == null && !deferred.isEmpty()) {
            reason = deferred.stream().map(Map.Entry::getKey).max(Comparator.comparingInt(StopReason::exitCode)).orElseThrow();
            why = String.join("; ", deferred.stream().map(Map.Entry::getValue).toList());
        }
        Result result = reason == StopReason.COMPLETED ? Result.SUCCEEDED
                : reason == StopReason.LOCK_LOST ? Result.LEASE_LOST : Result.FAILED;
        Report report = Report.of(result, nodes, rebootOrder, reason, why)
                .withJoinedDuringRun(joined).withGates(gates);
        return placement == null ? report : report.withPlacement(placement);
    }
}
