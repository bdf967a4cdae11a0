package dev.crifresh.coordinator.rollout;

import dev.crifresh.coordinator.ProgressListener;
import dev.crifresh.coordinator.StaleTaint;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.events.RolloutEvents;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.TaintPatches;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * Puts crifresh's taint ({@link StaleTaint#KEY}{@code =<runId>:<effect>}) on stale nodes before the first
 * drain and takes it off again: after a node's reboot, and for every node when the run ends, whatever the
 * exit path. A rerun also removes what a killed run left behind (any value of the key: the Lease makes
 * sure no other run is working). Each change is a JSON Patch guarded by a {@code test} of what it was
 * computed from; a refused test (422) or a conflict (409) re-reads the node and tries again, a few times;
 * transient API errors are retried ({@link ApiRetry}).
 * Best effort: a taint that cannot be set or removed is logged as a warning and never fails the run — the
 * taint steers the scheduler, it guards nothing crifresh relies on. Called on the run's context.
 */
final class StaleNodeTaints {
    private static final int ATTEMPTS = 5;

    private final NodeOps nodes;
    private final String runId;
    private final StaleTaint effect;
    private final RolloutEvents events;
    private final ProgressListener log;
    /** Nodes this run tainted and has not untainted yet. */
    private final java.util.Set<String> tainted = new java.util.TreeSet<>();

    /** Whether the run may still change nodes (it holds the Lease): no taint change is sent otherwise. */
    private final java.util.function.BooleanSupplier mayAct;

    /** Transient API errors (5xx, 429, no answer) on the reads and patches, retried like the rollout's own calls. */
    private final ApiRetry retry;

    StaleNodeTaints(NodeOps nodes, String runId, StaleTaint effect, RolloutEvents events, ProgressListener log,
                    java.util.function.BooleanSupplier mayAct, ApiRetry retry) {
        this.mayAct = mayAct;
        this.retry = retry;
        this.nodes = nodes;
        this.runId = runId;
        this.effect = effect;
        this.events = events;
        this.log = log;
    }

    /** Taints every named node; completes when all patches are done (failures are warnings). */
    Future<Void> taint(Collection<String> names) {
        if (!effect.enabled()) {
            return Future.succeededFuture();
        }
        List<Future<Boolean>> all = new ArrayList<>();
        for (String name : names) {
            all.add(change(name, node -> TaintPatches.put(node, StaleTaint.KEY, runId, effect.wire()), 1)
                    .map(changed -> {
                        tainted.add(name);
                        if (changed) {
                            events.emit(name, EventReason.TAINTED, "tainted " + StaleTaint.KEY + ":" + effect.wire()
                                    + " so that pods evicted from other stale nodes land on fresh ones");
                        }
                        return changed;
                    })
                    .recover(e -> warn("could not taint " + name, e)));
        }
        return Future.join(all).mapEmpty();
    }

    /** Removes crifresh's taint from the node, if it carries one. */
    Future<Void> untaint(String name) {
        return change(name, node -> TaintPatches.remove(node, StaleTaint.KEY), 1)
                .map(changed -> {
                    tainted.remove(name);
                    if (changed) {
                        events.emit(name, EventReason.UNTAINTED, "removed " + StaleTaint.KEY);
                    }
                    return changed;
                })
                .recover(e -> warn("could not remove " + StaleTaint.KEY + " from " + name, e))
                .mapEmpty();
    }

    /** Removes crifresh's taint from every node in {@code view} that carries it (a lost Lease never gets here). */
    Future<Void> untaintAll(Collection<Node> view) {
        List<Future<Void>> all = new ArrayList<>();
        for (Node node : view) {
            Taint t = TaintPatches.find(node, StaleTaint.KEY);
            if (t != null) {
                all.add(untaint(node.getMetadata().getName()));
            }
        }
        return Future.join(all).mapEmpty();
    }

    /** Removes the taint from every node this run tainted and has not untainted yet (whatever its view says). */
    Future<Void> untaintRemembered() {
        List<Future<Void>> all = new ArrayList<>();
        for (String name : List.copyOf(tainted)) {
            all.add(untaint(name));
        }
        return Future.join(all).mapEmpty();
    }

    /** Whether the node carries a crifresh taint that another run set (a leftover of a killed run). */
    boolean leftover(Node node) {
        Taint t = TaintPatches.find(node, StaleTaint.KEY);
        return t != null && !runId.equals(t.getValue());
    }

    /** Reads the node, computes the patch (null: nothing to do), sends it; retries refused tests and conflicts. */
    private Future<Boolean> change(String name, Function<Node, String> patchFor, int attempt) {
        return retry.call(() -> nodes.get(name)).compose(node -> {
            if (node == null) {
                return Future.succeededFuture(false);
            }
            String patch = patchFor.apply(node);
            if (patch == null) {
                return Future.succeededFuture(false);
            }
            if (!mayAct.getAsBoolean()) {
                return Future.failedFuture(new GuardedPatch.Fenced()); // a lost Lease: the next run removes our taints
            }
            return retry.call(() -> nodes.jsonPatch(name, patch)).map(n -> true);
        }).recover(e -> attempt < ATTEMPTS && retryable(e) ? change(name, patchFor, attempt + 1) : Future.failedFuture(e));
    }

    private static boolean retryable(Throwable e) {
        return e instanceof KubernetesClientException k && (k.getCode() == 409 || k.getCode() == 422);
    }

    private <T> Future<T> warn(String what, Throwable e) {
        log.log(ProgressListener.Level.WARN, "warning: " + what + ": " + ErrorText.message(e));
        return Future.succeededFuture();
    }
}
