package dev.crifresh.coordinator.rollout;

import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.util.function.Function;

/**
 * A Node patch decided on a fresh read and guarded by that read's resource version: read the Node, let
 * {@code decide} look at it (is the ownership still what we expect?) and build the patch with its
 * {@code metadata.resourceVersion}; a 409 (someone changed the node in between) reads and decides again,
 * at most {@link #CONFLICTS} times. Reads and patches are retried on transient errors ({@link ApiRetry});
 * nothing is sent once the run no longer holds the Lease ({@link Fenced}).
 */
final class GuardedPatch {
    static final int CONFLICTS = 5;

    /** What to do with the node as it was just read. */
    sealed interface Step permits Patch, Skip, Refuse {
    }

    /** Send this merge patch (it carries the read's resource version). */
    record Patch(String json) implements Step {
    }

    /** Nothing to send: the node already is as wanted (e.g. an earlier attempt that timed out did land). */
    record Skip() implements Step {
    }

    /** Do not touch the node (it is gone, or no longer ours). */
    record Refuse(String why) implements Step {
    }

    /** The patch was refused by {@code decide}: a fact about the node, not an API error. */
    static final class Refused extends RuntimeException {
        Refused(String why) {
            super(why, null, false, false);
        }
    }

    /** The run no longer holds the Lease: nothing may be sent. */
    static final class Fenced extends RuntimeException {
        Fenced() {
            super("the rollout lock is no longer held", null, false, false);
        }
    }

    private GuardedPatch() {
    }

    /**
     * @param decide called with the fresh node (null when deleted); on the run's context
     * @return the patched node, or the fresh one on {@link Skip}
     */
    static Future<Node> apply(RollHost host, String name, Function<Node, Step> decide) {
        return attempt(host, name, decide, 1);
    }

    private static Future<Node> attempt(RollHost host, String name, Function<Node, Step> decide, int attempt) {
        if (!host.leaseHeld()) {
            return Future.failedFuture(new Fenced());
        }
        return host.retry().call(() -> host.nodes().get(name)).compose(node -> {
            Step step = decide.apply(node);
            if (step instanceof Refuse refuse) {
                return Future.failedFuture(new Refused(refuse.why()));
            }
            if (step instanceof Skip) {
                return Future.succeededFuture(node);
            }
            if (!host.leaseHeld()) {
                return Future.failedFuture(new Fenced());
            }
            String json = ((Patch) step).json();
            return host.retry().call(() -> host.nodes().mergePatch(name, json)).recover(e -> {
                if (ApiFailure.of(e) == ApiFailure.CONFLICT && attempt < CONFLICTS) {
                    return attempt(host, name, decide, attempt + 1);
                }
                return Future.failedFuture(e);
            });
        });
    }
}
