package dev.crifresh.coordinator.rollout.api;

import dev.crifresh.common.retry.Retry;
import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.function.Function;

/**
 * A Node patch decided on a fresh read and guarded by {@code test} ops on what the decision depends on
 * ({@link dev.crifresh.coordinator.kube.NodePatches}): read the Node, let {@code decide} look at it (is the
 * ownership still what we expect?) and build the JSON Patch; a refused guard (409, 422: the node changed in
 * between) reads and decides again. Genuine conflicts — the node's resourceVersion moved since the read the
 * patch was built on — are decided again at once, for as long as the run holds the Lease; a refusal of a node that did
 * not change (an injected or unexplained 409/422) is retried after {@link #UNCHANGED}'s delay, kept as a {@link Retry},
 * at most {@link #UNCHANGED_CONFLICTS} times. Reads and patches are
 * retried on transient errors ({@link ApiRetry}); nothing is sent once the run no longer holds the Lease
 * ({@link Fenced}); while an allowed API outage lasts, nothing is sent until the Lease is renewed again, and then the
 * patch is decided anew on a fresh read.
 *
 * <p>The first decision may be taken on a copy the caller already has (the informer's, or the answer of the roll's last
 * call) instead of a GET: the patch's guard makes a stale copy harmless — it is refused (409, 422) and read again. Only a
 * {@link Patch} is sent from such a copy; a {@link Skip} or {@link Refuse} is confirmed on a fresh read first.
 */
public final class GuardedPatch {
    /** Refusals of a patch on a node that did not change in between, before the patch fails. */
    static final int UNCHANGED_CONFLICTS = 10;
    /**
     * The wait before a refusal of a node that did not change is tried again: 10 ms doubling to 100 ms (650 ms over the
     * {@link #UNCHANGED_CONFLICTS} retries). The first refusal is read again at once: the node may have changed.
     */
    static final RetryPolicy UNCHANGED = RetryPolicy.doubling(Duration.ofMillis(10), Duration.ofMillis(100));

    /** What to do with the node as it was just read. */
    public sealed interface Step permits Patch, Skip, Refuse {
    }

    /** Send this JSON Patch (its test ops guard the decision). */
    public record Patch(String json) implements Step {
    }

    /** Nothing to send: the node already is as wanted (e.g. an earlier attempt that timed out did land). */
    public record Skip() implements Step {
    }

    /** Do not touch the node (it is gone, or no longer ours). */
    public record Refuse(String why) implements Step {
    }

    /** The patch was refused by {@code decide}: a fact about the node, not an API error. */
    public static final class Refused extends RuntimeException {
        Refused(String why) {
            super(why, null, false, false);
        }
    }

    /** The run no longer holds the Lease: nothing may be sent. */
    public static final class Fenced extends RuntimeException {
        public Fenced() {
            super("the rollout lock is no longer held", null, false, false);
        }
    }

    /** What a guarded patch needs from its caller: the node API, its retry, the fence every call passes, its timers. */
    public interface Host {
        NodeOps nodes();

        ApiRetry retry();

        Fence fence();

        /** The timers of the waits between refusals of an unchanged node ({@link #UNCHANGED}). */
        Ticker ticker();
    }

    /** Where a guarded patch is sent: the node API, its retry, the fence every call passes, and the run's ticker. */
    public record Target(NodeOps nodes, ApiRetry retry, Fence fence, Ticker ticker) implements Host {
    }

    private GuardedPatch() {
    }

    /**
     * @param decide called with the fresh node (null when deleted); on the run's context
     * @return the patched node, or the fresh one on {@link Skip}
     */
    public static Future<Node> apply(Host host, String name, Function<Node, Step> decide) {
        return attempt(host, name, decide, null, null, null);
    }

    /** Like {@link #apply(Host, String, Function)}, deciding first on {@code known} (a copy of the node; null: read it). */
    public static Future<Node> apply(Host host, String name, Node known, Function<Node, Step> decide) {
        return attempt(host, name, decide, null, null, known);
    }

    /**
     * Like {@link #apply}, for a claim — this run's ownership written on a node, or another run's taken over or
     * dropped: the Lease is read first and must still name this run ({@link Fence#confirm()}).
     */
    public static Future<Node> claim(Host host, String name, Function<Node, Step> decide) {
        return claim(host, name, null, decide);
    }

    /** Like {@link #claim(Host, String, Function)}, deciding first on {@code known} (null: read the node). */
    public static Future<Node> claim(Host host, String name, Node known, Function<Node, Step> decide) {
        return host.fence().confirm().compose(v -> attempt(host, name, decide, null, null, known));
    }

    /** Whether the server refused the patch's guard: a {@code test} op (422) or a resource version (409). */
    static boolean refusedGuard(Throwable e) {
        return ApiFailure.ofGuardedPatch(e) == ApiFailure.CONFLICT;
    }

    /**
     * One read-decide-patch round; {@code known}: decide on this copy instead of reading (null: read).
     *
     * @param unchanged   the refusals so far of the node at {@code lastVersion} (null before the first refusal)
     * @param lastVersion the resourceVersion of the node as read for the last refused patch
     */
    private static Future<Node> attempt(Host host, String name, Function<Node, Step> decide, Retry unchanged, String lastVersion,
                                        Node known) {
        if (!host.fence().mayWrite()) {
            // After an allowed API outage (the Lease renewed again), decided anew on a fresh read; else fenced.
            return host.fence().whenMayWrite().compose(v -> attempt(host, name, decide, unchanged, lastVersion, null));
        }
        Future<Node> read = known != null ? Future.succeededFuture(known) : host.retry().call(() -> host.nodes().get(name));
        return read.compose(node -> {
            Step step = decide.apply(node);
            if (known != null && !(step instanceof Patch)) {
                return attempt(host, name, decide, unchanged, lastVersion, null); // confirmed on a fresh read
            }
            if (step instanceof Refuse refuse) {
                return Future.failedFuture(new Refused(refuse.why()));
            }
            if (step instanceof Skip) {
                return Future.succeededFuture(node);
            }
            if (!host.fence().mayWrite()) {
                return host.fence().whenMayWrite().compose(v -> attempt(host, name, decide, unchanged, lastVersion, null));
            }
            String version = node.getMetadata().getResourceVersion();
            Retry refusals = version != null && version.equals(lastVersion) ? unchanged.failed()
                    : Retry.first(UNCHANGED, host.ticker().nanoTime() / 1_000_000);
            String json = ((Patch) step).json();
            return host.retry().call(() -> host.nodes().jsonPatch(name, json)).recover(e -> {
                if (!refusedGuard(e) || refusals.failures() >= UNCHANGED_CONFLICTS) {
                    return Future.failedFuture(e);
                }
                Future<Void> pause = refusals.failures() == 0 ? Future.succeededFuture() : after(host.ticker(), refusals.delay());
                return pause.compose(v -> attempt(host, name, decide, refusals, version, null));
            });
        });
    }

    private static Future<Void> after(Ticker ticker, Duration delay) {
        Promise<Void> elapsed = Promise.promise();
        ticker.setTimer(delay, () -> elapsed.complete());
        return elapsed.future();
    }
}
