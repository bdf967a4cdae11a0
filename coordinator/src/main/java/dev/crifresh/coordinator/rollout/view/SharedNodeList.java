package dev.crifresh.coordinator.rollout.view;

import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.function.Supplier;

/**
 * The fresh node list of the last-moment checks, shared by checks that ask at about the same time.
 *
 * <p>Every caller gets a list whose request was sent after it asked, so the list is as fresh as one of its
 * own; callers that ask while a list is in flight share the one sent when it answers. A wave of B nodes
 * drained together thus costs two lists of the cluster, not B (each is O(cluster size)). Not thread-safe:
 * used on the run's context only.
 */
public final class SharedNodeList {
    private final Supplier<Future<List<Node>>> list;
    /** The list sent and not answered yet; null when none is in flight. */
    private Future<List<Node>> inFlight;
    /** Callers that asked after {@link #inFlight} was sent: they share the next list. */
    private Promise<List<Node>> next;

    /** @param list sends one list request (with its retries) */
    public SharedNodeList(Supplier<Future<List<Node>>> list) {
        this.list = list;
    }

    /** A list of every node whose request is sent now or, when one is in flight, right after it answers. */
    public Future<List<Node>> fresh() {
        if (inFlight == null) {
            return send();
        }
        if (next == null) {
            next = Promise.promise();
        }
        return next.future();
    }

    private Future<List<Node>> send() {
        Future<List<Node>> sent = list.get();
        inFlight = sent;
        sent.onComplete(ar -> {
            if (inFlight == sent) {
                inFlight = null;
            }
            Promise<List<Node>> waiting = next;
            if (waiting != null) {
                next = null;
                send().onComplete(waiting);
            }
        });
        return sent;
    }
}
