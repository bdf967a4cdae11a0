package dev.crifresh.agent.http;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;

/**
 * What a coordinator's run has written on this agent's Node, as the agent's metrics export it, so the last run is
 * visible from inside the cluster without a Pushgateway. The keys are the coordinator's (its
 * {@code CrifreshAnnotations} and {@code StaleTaint}; the charts module's contract test holds them equal).
 *
 * @param run                 the run holding the node ({@code crifresh.dev/rollout}'s run id), or null
 * @param phase               that run's phase on the node, or {@code unreadable}; null when no run holds it
 * @param staleTaintRun       the run whose {@code crifresh.dev/stale} taint the node carries, or null
 * @param rebootNotCarriedOut the node carries {@code crifresh.dev/reboot-not-carried-out}
 */
public record RolloutMarks(String run, String phase, String staleTaintRun, boolean rebootNotCarriedOut) {
    public static final String ROLLOUT = "crifresh.dev/rollout";
    public static final String NOT_CARRIED_OUT = "crifresh.dev/reboot-not-carried-out";
    public static final String STALE_TAINT = "crifresh.dev/stale";
    public static final RolloutMarks NONE = new RolloutMarks(null, null, null, false);

    public static RolloutMarks of(Node node) {
        Map<String, String> annotations = node.getMetadata() == null ? null : node.getMetadata().getAnnotations();
        String ownership = annotations == null ? null : annotations.get(ROLLOUT);
        String run = null;
        String phase = null;
        if (ownership != null && !ownership.isBlank()) {
            int slash = ownership.lastIndexOf('/');
            run = slash < 0 ? ownership : ownership.substring(0, slash);
            phase = slash < 0 || slash == ownership.length() - 1 ? "unreadable" : ownership.substring(slash + 1);
        }
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of()
                : node.getSpec().getTaints();
        String taintRun = taints.stream().filter(t -> STALE_TAINT.equals(t.getKey()))
                .map(t -> t.getValue() == null ? "" : t.getValue()).findFirst().orElse(null);
        return new RolloutMarks(run, phase, taintRun, annotations != null && annotations.containsKey(NOT_CARRIED_OUT));
    }
}
