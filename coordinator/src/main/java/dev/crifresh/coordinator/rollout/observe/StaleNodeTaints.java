package dev.crifresh.coordinator.rollout.observe;

import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.kube.TaintPatches;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Puts crifresh's taint ({@link StaleTaint#KEY}{@code =<runId>:<effect>}) on stale nodes before the first
 * drain and takes it off again: after a node's reboot, and for every node when the run ends, whatever the
 * exit path. A rerun also removes what a killed run left behind (any value of the key: the Lease makes
 * sure no other run is working). Each change is a {@link GuardedPatch} on the run's cleanup target (the
 * closing fence: it still writes after the run ended, only while the Lease is held), decided first on the run's
 * copy of the node (no read: a rebooted node's untaint is on the way to the next node's start), so a refused
 * guard is decided again on a fresh read and transient API errors are retried ({@link ApiRetry}), also at the end of
 * the run. Best effort: a taint that cannot be set or removed is a warning and never fails the run — the
 * taint steers the scheduler, it guards nothing crifresh relies on. Called on the run's context.
 */
public final class StaleNodeTaints {
    private final GuardedPatch.Target target;
    private final String runId;
    private final StaleTaint effect;
    private final Consumer<RunEvent> observer;
    /** Nodes this run tainted and has not untainted yet. */
    private final Set<String> tainted = new TreeSet<>();

    /** The run's copy of a node (null: unknown), on which each change is decided first. */
    private final Function<String, Node> known;

    /**
     * @param target where the patches go: the run's nodes, with the closing fence and its retry
     * @param known  the run's copy of a node (null: read it), on which each change is decided first — a stale copy is
     *               refused by the patch's guard and read again ({@link GuardedPatch})
     */
    public StaleNodeTaints(GuardedPatch.Target target, String runId, StaleTaint effect, Consumer<RunEvent> observer,
                           Function<String, Node> known) {
        this.target = target;
        this.runId = runId;
        this.effect = effect;
        this.observer = observer;
        this.known = known;
    }

    /** Taints every named node; completes when all patches are done (failures are warnings). */
    public Future<Void> taint(Collection<String> names) {
        if (!effect.enabled()) {
            return Future.succeededFuture();
        }
        List<Future<Boolean>> all = new ArrayList<>();
        for (String name : names) {
            all.add(change(name, node -> TaintPatches.put(node, StaleTaint.KEY, runId, effect.wire()))
                    .map(changed -> {
                        tainted.add(name);
                        if (changed) {
                            observer.accept(new RunEvent.NodeEvent(name, EventReason.TAINTED, "tainted " + StaleTaint.KEY + ":"
                                    + effect.wire() + " so that pods evicted from other stale nodes land on fresh ones"));
                        }
                        return changed;
                    })
                    .recover(e -> warn("could not taint " + name, e)));
        }
        return Future.join(all).mapEmpty();
    }

    /** Removes crifresh's taint from the node, if it carries one. */
    public Future<Void> untaint(String name) {
        return change(name, node -> TaintPatches.remove(node, StaleTaint.KEY))
                .map(changed -> {
                    tainted.remove(name);
                    if (changed) {
                        observer.accept(new RunEvent.NodeEvent(name, EventReason.UNTAINTED, "removed " + StaleTaint.KEY));
                    }
                    return changed;
                })
                .recover(e -> warn("could not remove " + StaleTaint.KEY + " from " + name, e))
                .mapEmpty();
    }
    /** Removes crifresh's taint from every node in {@code view} that carries it (a lost Lease never gets here). */
    public Future<Void> untaintAll(Collection<Node> view) {
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
    public Future<Void> untaintRemembered() {
        List<Future<Void>> all = new ArrayList<>();
        for (String name : List.copyOf(tainted)) {
            all.add(untaint(name));
        }
        return Future.join(all).mapEmpty();
    }

    /** Whether the node carries a crifresh taint that another run set (a leftover of a killed run). */
    public boolean leftover(Node node) {
        Taint t = TaintPatches.find(node, StaleTaint.KEY);
        return t != null && !runId.equals(t.getValue());
    }

    /**
     * Computes the patch on the run's copy of the node, or on a read of it (null: nothing to do; confirmed on a read) and
     * sends it as a {@link GuardedPatch}; true when a patch was sent (the last decision, on the copy the patch landed on).
     */
    private Future<Boolean> change(String name, Function<Node, String> patchFor) {
        boolean[] patched = {false};
        return GuardedPatch.apply(target, name, known.apply(name), node -> {
            String patch = node == null ? null : patchFor.apply(node);
            patched[0] = patch != null;
            return patch == null ? new GuardedPatch.Skip() : new GuardedPatch.Patch(patch);
        }).map(node -> patched[0]);
    }

    private <T> Future<T> warn(String what, Throwable e) {
        observer.accept(new RunEvent.Warning("warning: " + what + ": " + ErrorText.message(e)));
        return Future.succeededFuture();
    }
}
