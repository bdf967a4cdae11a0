package dev.crifresh.coordinator.gate;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.gate.block.Blockers;
import dev.crifresh.coordinator.gate.etcd.ControlPlane;
import dev.crifresh.coordinator.gate.etcd.EtcdHealth;
import dev.crifresh.coordinator.gate.etcd.EtcdProbe;
import dev.crifresh.coordinator.gate.pull.PullProof;
import dev.crifresh.coordinator.time.Ticker;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The rollout gates, at the three points the rollout calls them (every call on the run's context):
 * <ol>
 *   <li>{@link #beforeTakeDown}, before a node is cordoned: its <b>blockers</b> (a firing alert matching
 *       {@code --block-on-alert}, a pod matching {@code --block-on-pod-selector} on the node) are waited out,
 *       bounded by {@code --block-timeout}; then, for a control plane, the <b>etcd gate</b>: every member
 *       healthy, one leader, as many members as control planes, no alarm — else the node is not touched;</li>
 *   <li>{@link #afterReturn}, after a rebooted node attests fresh: for a control plane, etcd must be healthy
 *       again (waited for up to {@code --etcd-timeout}) before the next one may go; then the <b>pull proof</b>;</li>
 *   <li>{@link #proveSkipped}, before any reboot with {@code --pull-proof all}: the pull proof, read-only, on
 *       every node skipped as fresh.</li>
 * </ol>
 * {@link #plan} shows what the gates say now, changing nothing. Each gate's finding is kept for the report
 * ({@link #notes}). With no gate configured every call passes at once.
 */
public final class Gates implements NodeGates {
    private final Ticker ticker;
    private final Context context;
    private final GateSettings settings;
    private final PullProof pullProof;
    private final EtcdProbe etcd;
    private final Blockers blockers;
    private final ProgressListener progress;
    private final List<GateNote> notes = new CopyOnWriteArrayList<>();

    /**
     * @param ticker    the gates' time and timers (a test's moves only when it says so)
     * @param pullProof null when {@code --pull-proof off}
     * @param etcd      null when {@code --etcd-check none}
     */
    public Gates(Ticker ticker, Context context, GateSettings settings, PullProof pullProof, EtcdProbe etcd, Blockers blockers,
            ProgressListener progress) {
        this.ticker = ticker;
        this.context = context;
        this.settings = settings;
        this.pullProof = pullProof;
        this.etcd = etcd;
        this.blockers = blockers == null ? new Blockers(null, null, null) : blockers;
        this.progress = progress == null ? ProgressListener.NONE : progress;
    }

    /** No gate at all. */
    public static Gates none(Vertx vertx, Context context) {
        return new Gates(Ticker.of(vertx), context, GateSettings.off(), null, null, null, ProgressListener.NONE);
    }

    public List<GateNote> notes() {
        return List.copyOf(notes);
    }

    /** At the start of a rollout: says what is not checked, and deletes probe pods an interrupted run left behind. */
    public Future<Void> start(boolean controlPlanesToReboot) {
        if (etcd == null && controlPlanesToReboot) {
            progress.line("warning: etcd health is not checked before control-plane reboots (--etcd-check none)");
            notes.add(new GateNote("etcd", null, "not-checked", "--etcd-check none: control planes are rebooted without"
                    + " looking at etcd"));
        }
        if (pullProof == null) {
            return Future.succeededFuture();
        }
        return pullProof.deleteLeftovers().map(n -> {
            if (n > 0) {
                progress.line("deleted " + n + " pull-proof pod(s) an earlier run left behind");
            }
            return (Void) null;
        }).recover(e -> {
            progress.line("warning: could not look for pull-proof pods of earlier runs: " + e.getMessage());
            return Future.succeededFuture();
        });
    }

    // ---- 1. before a node is taken down ------------------------------------------------------------------

    @Override
    public Future<GateVerdict> beforeTakeDown(NodeFacts node, List<NodeFacts> cluster, BooleanSupplier abandoned,
            Consumer<String> say) {
        Promise<GateVerdict> blocked = Promise.promise();
        if (blockers.enabled()) {
            long deadline = ticker.nanoTime() + settings.blockTimeout().toNanos();
            waitBlockers(node.name(), deadline, ticker.nanoTime(), null, abandoned, say, blocked);
        } else {
            blocked.complete(GateVerdict.passed("no blockers configured"));
        }
        return blocked.future().compose(verdict -> {
            if (!verdict.pass() || node.role() != Role.CONTROL_PLANE || etcd == null || abandoned.getAsBoolean()) {
                return Future.succeededFuture(verdict);
            }
            return checkEtcd(node, cluster).map(health -> {
                notes.add(new GateNote("etcd", node.name(), health.healthy() ? "passed" : "failed", "before its reboot: "
                        + health.detail()));
                if (health.healthy()) {
                    say.accept("etcd healthy before its reboot (" + health.detail() + ")");
                    return verdict;
                }
                return GateVerdict.failed("not rebooted: etcd is not healthy (" + health.detail()
                        + "); a control-plane reboot now could cost quorum");
            });
        });
    }

    private void waitBlockers(String node, long deadline, long started, List<String> seen, BooleanSupplier abandoned,
            Consumer<String> say, Promise<GateVerdict> result) {
        blockers.check(node).onComplete(ar -> {
            if (abandoned.getAsBoolean()) {
                result.tryComplete(GateVerdict.failed("abandoned while waiting for its blockers"));
                return;
            }
            List<String> now = ar.succeeded() ? ar.result() : List.of("blocker check (" + ar.cause().getMessage() + ")");
            if (now.isEmpty()) {
                if (seen != null) {
                    String waited = DurationText.format(Duration.ofMillis(Math.max(1, (ticker.nanoTime() - started) / 1_000_000)));
                    say.accept("no longer blocked, after " + waited);
                    notes.add(new GateNote(kind(seen), node, "waited", "waited " + waited + " for " + String.join(", ", seen)));
                }
                result.tryComplete(GateVerdict.passed("not blocked"));
                return;
            }
            List<String> all = new ArrayList<>(seen == null ? List.of() : seen);
            now.stream().filter(b -> !all.contains(b)).forEach(all::add);
            if (seen == null || !seen.containsAll(now)) {
                say.accept("waits: blocked by " + String.join(", ", now) + " (up to "
                        + DurationText.format(settings.blockTimeout()) + ")");
            }
            if (ticker.nanoTime() - deadline >= 0) {
                String why = "blocked for " + DurationText.format(settings.blockTimeout()) + " by " + String.join(", ", now)
                        + "; not touched";
                notes.add(new GateNote(kind(now), node, "timed-out", why));
                result.tryComplete(GateVerdict.timedOut(why));
                return;
            }
            long wait = Math.min(settings.blockPollInterval().toMillis(),
                    Math.max(1, (deadline - ticker.nanoTime()) / 1_000_000));
            ticker.setTimer(Duration.ofMillis(wait), () -> waitBlockers(node, deadline, started, all, abandoned, say, result));
        });
    }

    private static String kind(List<String> blockers) {
        return blockers.stream().allMatch(b -> b.startsWith("pod ")) ? "pod" : "alert";
    }

    // ---- 2. after a rebooted node attests fresh --------------------------------------------------------------

    @Override
    public Future<GateVerdict> afterReturn(NodeFacts node, List<NodeFacts> cluster, BooleanSupplier abandoned,
            Consumer<String> say) {
        Future<GateVerdict> etcdBack = node.role() == Role.CONTROL_PLANE && etcd != null
                ? awaitEtcd(node, cluster, ticker.nanoTime() + settings.etcdTimeout().toNanos(), abandoned, say, null)
                : Future.succeededFuture(GateVerdict.passed(""));
        return etcdBack.compose(verdict -> {
            if (!verdict.pass() || pullProof == null || abandoned.getAsBoolean()) {
                return Future.succeededFuture(verdict);
            }
            say.accept("pull proof: pulling " + settings.pullProofImage() + " on the node, without imagePullSecrets");
            return pullProof.prove(node.name(), node.uid()).map(proof -> {
                notes.add(new GateNote("pull-proof", node.name(), proof.pass() ? "passed" : "failed", proof.detail()));
                say.accept(proof.detail());
                return proof.pass() ? new GateVerdict(true, join(verdict.detail(), proof.detail()), false) : proof;
            });
        });
    }

    private Future<GateVerdict> awaitEtcd(NodeFacts node, List<NodeFacts> cluster, long deadline, BooleanSupplier abandoned,
            Consumer<String> say, String lastProblem) {
        return checkEtcd(node, cluster).compose(health -> {
            if (health.healthy()) {
                notes.add(new GateNote("etcd", node.name(), "passed", "after its return: " + health.detail()));
                say.accept("etcd healthy again (" + health.detail() + ")");
                return Future.succeededFuture(GateVerdict.passed(health.detail()));
            }
            if (abandoned.getAsBoolean()) {
                return Future.succeededFuture(GateVerdict.failed("abandoned while waiting for etcd"));
            }
            if (ticker.nanoTime() - deadline >= 0) {
                String why = "etcd did not become healthy within " + DurationText.format(settings.etcdTimeout())
                        + " after its return: " + health.detail() + "; no further control plane is rebooted";
                notes.add(new GateNote("etcd", node.name(), "failed", why));
                return Future.succeededFuture(GateVerdict.failed(why));
            }
            if (!health.detail().equals(lastProblem)) {
                say.accept("waiting for etcd to be healthy again: " + health.detail());
            }
            Promise<GateVerdict> next = Promise.promise();
            ticker.setTimer(settings.etcdPollInterval(),
                    () -> awaitEtcd(node, cluster, deadline, abandoned, say, health.detail()).onComplete(next));
            return next.future();
        });
    }

    private Future<EtcdHealth> checkEtcd(NodeFacts node, List<NodeFacts> cluster) {
        List<ControlPlane> cps = cluster.stream().filter(f -> f.role() == Role.CONTROL_PLANE)
                .map(f -> new ControlPlane(f.name(), f.internalIps().isEmpty() ? null : f.internalIps().get(0)))
                .sorted((a, b) -> a.name().compareTo(b.name())).toList();
        ControlPlane self = new ControlPlane(node.name(), node.internalIps().isEmpty() ? null : node.internalIps().get(0));
        return context.<EtcdHealth>executeBlocking(() -> etcd.check(cps, self), false)
                .recover(e -> Future.succeededFuture(EtcdHealth.problem("cannot check etcd: " + e.getMessage())));
    }

    // ---- 3. read-only pull proof for skipped fresh nodes ------------------------------------------------------

    /** With {@code --pull-proof all}: proves every given (fresh, skipped) node, one at a time; empty otherwise. */
    public Future<Map<String, GateVerdict>> proveSkipped(List<NodeFacts> fresh) {
        Map<String, GateVerdict> results = new LinkedHashMap<>();
        if (pullProof == null || settings.pullProof() != PullProofMode.ALL || fresh.isEmpty()) {
            return Future.succeededFuture(results);
        }
        progress.line("pull proof (read-only) on " + fresh.size() + " node(s) skipped as fresh: "
                + String.join(", ", fresh.stream().map(NodeFacts::name).toList()));
        Future<Void> chain = Future.succeededFuture();
        for (NodeFacts f : fresh) {
            chain = chain.compose(v -> pullProof.prove(f.name(), f.uid()).map(verdict -> {
                results.put(f.name(), verdict);
                notes.add(new GateNote("pull-proof", f.name(), verdict.pass() ? "passed" : "failed",
                        "read-only: " + verdict.detail()));
                progress.line(f.name() + ": " + verdict.detail());
                return (Void) null;
            }));
        }
        return chain.map(v -> results);
    }

    // ---- plan ---------------------------------------------------------------------------------------------------

    /** What the gates say now about the nodes a rollout would reboot; waits for nothing, changes nothing. */
    public Future<List<GateNote>> plan(List<NodeFacts> toReboot, List<NodeFacts> cluster) {
        List<GateNote> found = new CopyOnWriteArrayList<>();
        List<Future<?>> checks = new ArrayList<>();
        if (blockers.enabled()) {
            for (NodeFacts f : toReboot) {
                checks.add(blockers.check(f.name()).onSuccess(list -> {
                    if (!list.isEmpty()) {
                        found.add(new GateNote(kind(list), f.name(), "blocked", "blocked now by " + String.join(", ", list)
                                + ": a rollout would wait up to " + DurationText.format(settings.blockTimeout())));
                    }
                }));
            }
        }
        NodeFacts firstCp = toReboot.stream().filter(f -> f.role() == Role.CONTROL_PLANE).findFirst().orElse(null);
        if (firstCp != null) {
            if (etcd == null) {
                found.add(new GateNote("etcd", null, "not-checked", "--etcd-check none: control planes would be rebooted"
                        + " without looking at etcd"));
            } else {
                checks.add(checkEtcd(firstCp, cluster).onSuccess(h -> found.add(new GateNote("etcd", null,
                        h.healthy() ? "passed" : "failed", h.healthy() ? h.detail()
                                : h.detail() + ": a rollout would stop before its first control-plane reboot"))));
            }
        }
        if (pullProof != null) {
            found.add(new GateNote("pull-proof", null, "not-checked", "a rollout proves " + (settings.pullProof()
                    == PullProofMode.ALL ? "every node (skipped ones read-only, before any reboot)" : "every rebooted node")
                    + " by pulling " + settings.pullProofImage()));
        }
        return Future.join(checks).transform(ar -> Future.succeededFuture(found.stream()
                .sorted((a, b) -> (a.gate() + "/" + a.node()).compareTo(b.gate() + "/" + b.node())).toList()));
    }

    /** The run ends: deletes probe pods still in flight. */
    public Future<Void> close() {
        blockers.close();
        return pullProof == null ? Future.succeededFuture() : pullProof.deleteLive().recover(e -> Future.succeededFuture());
    }

    private static String join(String a, String b) {
        return a == null || a.isEmpty() ? b : a + "; " + b;
    }
}
