package dev.crifresh.coordinator.rollout.view;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.function.Supplier;

/**
 * The fresh node list of the last-moment checks, shared by checks that ask at about the same time; {@code T} is what
 * one list is made into once, for every caller that shares it.
 *
 * <p>Every caller gets a list whose request was sent after it asked, so the list is as fresh as one of its
 * own; callers that ask while a list is in flight share the one sent when it answers. A wave of B nodes
 * drained together thus costs two lists of the cluster, not B (each is O(cluster size)). Not thread-safe:
 * used on the run's context only.
 */
public final class SharedNodeList<T> {
    private final Supplier<Future<List<T>>> list;
    /** The list sent and not answered yet; null when none is in flight. */
    private Future<List<T>> inFlight;
    /** Callers that asked after {@link #inFlight} was sent: they share the next list. */
    private Promise<List<T>> next;

    /** @param list sends one list request (with its retries) */
    public SharedNodeList(Supplier<Future<List<T>>> list) {
        this.list = list;
    }

    /** A list of every node whose request is sent now or, when one is in flight, right after it answers. */
    public Future<List<T>> fresh() {
        if (inFlight == null) {
            return send();
        }
        if (next == null) {
            next = Promise.promise();
        }
        return next.future();
    }

    private Future<List<T>> send() {
        Future<List<T>> sent = list.get();
        inFlight = sent;
        sent.onComplete(ar -> {
            if (inFlight == sent) {
                inFlight = null;
            }
            Promise<List<T>> waiting = next;
            if (waiting != null) {
                next = null;
                send().onComplete(waiting);
            }
        });
        return sent;
    }
}
