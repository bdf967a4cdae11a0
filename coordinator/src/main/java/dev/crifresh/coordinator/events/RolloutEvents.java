package dev.crifresh.coordinator.events;

import dev.crifresh.coordinator.ProgressListener;
import dev.crifresh.coordinator.kube.EventOps;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Clock;
import java.util.function.Function;

/**
 * Records the rollout's steps as Events on each Node. Best effort: an Event that cannot be written (no
 * RBAC, an API error) never changes what the rollout does; the first failure is logged as a warning,
 * later ones are only counted. Called on the run's context.
 */
public final class RolloutEvents {
    private final EventOps events;
    private final String runId;
    private final Function<String, Node> nodes;
    private final ProgressListener log;
    private final Clock clock;
    private long sequence;
    private int failures;

    /**
     * @param nodes     the run's latest view of a node by name (null when unknown), for its UID
     */
    public RolloutEvents(EventOps events, String runId, Function<String, Node> nodes,
                         ProgressListener log, Clock clock) {
        this.events = events;
        this.runId = runId;
        this.nodes = nodes;
        this.log = log;
        this.clock = clock;
    }

    public void emit(String nodeName, EventReason reason, String message) {
        Node node = nodes.apply(nodeName);
        String uid = node == null || node.getMetadata() == null ? null : node.getMetadata().getUid();
        events.create(NodeEvent.of(nodeName, uid, reason, message, runId, clock.instant(), sequence++))
                .onFailure(e -> {
                    if (failures++ == 0) {
                        log.log(ProgressListener.Level.WARN, "warning: cannot record Events on nodes (" + reason.reason()
                                + " on " + nodeName + "): " + e.getMessage() + "; the rollout goes on without them");
                    }
                });
    }

    /** Events that could not be written. */
    public int failures() {
        return failures;
    }
}
