package dev.crifresh.coordinator.events;

import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.kube.EventOps;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Records the rollout's steps as Events on each Node. Best effort: an Event that cannot be written (no
 * RBAC, an API error) never changes what the rollout does; the first failure is logged as a warning,
 * later ones are only counted. Fenced like every other write: no Event is sent once the run may not act
 * ({@code mayWrite}), and the run ends only after the Events it sent were answered ({@link #settled()}),
 * so nothing of a run reaches the API server after its end. Called on the run's context.
 */
public final class RolloutEvents {
    private final EventOps events;
    private final String runId;
    private final Function<String, Node> nodes;
    private final ProgressListener log;
    private final Clock clock;
    private final BooleanSupplier mayWrite;
    private long sequence;
    private int failures;
    private int inFlight;
    private Promise<Void> idle;

    /**
     * @param nodes     the run's latest view of a node by name (null when unknown), for its UID
     * @param mayWrite  whether the run may write now (it holds the Lease); an Event is dropped otherwise
     */
    public RolloutEvents(EventOps events, String runId, Function<String, Node> nodes,
                         ProgressListener log, Clock clock, BooleanSupplier mayWrite) {
        this.mayWrite = mayWrite;
        this.events = events;
        this.runId = runId;
        this.nodes = nodes;
        this.log = log;
        this.clock = clock;
    }

    public void emit(String nodeName, EventReason reason, String message) {
        if (!mayWrite.getAsBoolean()) {
            return;
        }
        Node node = nodes.apply(nodeName);
        String uid = node == null || node.getMetadata() == null ? null : node.getMetadata().getUid();
        inFlight++;
        events.create(NodeEvent.of(nodeName, uid, reason, message, runId, clock.instant(), sequence++))
                .onComplete(ar -> {
                    if (ar.failed() && failures++ == 0) {
                        log.log(ProgressListener.Level.WARN, "warning: cannot record Events on nodes (" + reason.reason()
                                + " on " + nodeName + "): " + ar.cause().getMessage() + "; the rollout goes on without them");
                    }
                    if (--inFlight == 0 && idle != null) {
                        Promise<Void> waiting = idle;
                        idle = null;
                        waiting.complete();
                    }
                });
    }

    /** Completes once every Event sent so far was answered (written or failed). */
    public Future<Void> settled() {
        if (inFlight == 0) {
            return Future.succeededFuture();
        }
        if (idle == null) {
            idle = Promise.promise();
        }
        return idle.future();
    }
}
