package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.coordinator.kube.PodOps.Eviction;
import dev.crifresh.coordinator.kube.PodOps.PodWatch;
import dev.crifresh.coordinator.rollout.api.ErrorText;
import dev.crifresh.coordinator.rollout.plan.DrainSelection;
import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The drain step of a {@link NodeRunner}: evict every pod but DaemonSet, mirror and already-terminating pods
 * through the Eviction API, retry PDB refusals with backoff, and wait until the evicted pods are gone, all
 * within {@code --drain-timeout}.
 *
 * <p>Event-driven: a watch on the node's pods re-evaluates the drain on every pod change, so the drain ends
 * the moment the last evicted pod is gone. A slow re-list ({@link #relistMillis}) is only a safety net for
 * a watch that silently stops delivering; when the watch cannot be started at all, the re-list becomes the
 * mechanism, at the faster {@link #pollMillis} period. Runs on the run's context; every asynchronous answer
 * is dropped unless the roll is still draining.
 */
final class DrainRunner {
    /** Upper bound of the safety-net re-list period while the watch runs. */
    static final Duration RELIST = Duration.ofSeconds(5);

    private final RollPorts ports;
    private final String name;
    private final BooleanSupplier draining;
    private final Consumer<String> say;
    private final Runnable drained;
    private final Consumer<String> failed;

    /** Pods whose eviction the API server accepted (or that were gone when evicted), by uid. */
    private final Set<String> evicted = new HashSet<>();
    /** Pods with an eviction call in flight, by uid. */
    private final Set<String> evicting = new HashSet<>();
    /** Pods whose eviction was refused or failed, by uid, with why; retried when the backoff timer fires. */
    private final Map<String, String> refused = new LinkedHashMap<>();
    private RetryPolicy backoff;
    /** Back-off delays taken since the drain started: eviction retries and failed lists share one sequence. */
    private int retries;
    private int lastLeft = -1;
    private String lastWaitDetail = "";
    /** Bumped on every start and stop: answers of an earlier drain are dropped. */
    private int generation;
    private boolean active;
    private PodWatch watch;
    private long deadlineTimer = -1;
    private long retryTimer = -1;
    private long relistTimer = -1;

    /**
     * @param draining whether the roll is still in its drain step
     * @param say      a progress line about the node
     * @param drained  every pod to evict is gone
     * @param failed   the drain did not finish in time (the reason)
     */
    DrainRunner(RollPorts ports, String name, BooleanSupplier draining, Consumer<String> say, Runnable drained,
              Consumer<String> failed) {
        this.ports = ports;
        this.name = name;
        this.draining = draining;
        this.say = say;
        this.drained = drained;
        this.failed = failed;
    }

    /**
     * Retrying PDB-blocked evictions and failed pod lists, scaled to the drain timeout: doubling from 1/20 of it
     * (10 ms – 500 ms) to 1/4 (up to 10 s), no jitter; the drain's own deadline timer ends the retries.
     */
    static RetryPolicy retryPolicy(Duration timeout) {
        long t = timeout.toMillis();
        long first = Math.min(500, Math.max(10, t / 20));
        long cap = Math.min(10_000, Math.max(first, t / 4));
        return RetryPolicy.doubling(Duration.ofMillis(first), Duration.ofMillis(cap));
    }

    private long nextBackoff() {
        return backoff.delay(++retries).toMillis();
    }

    /** Starts a drain (again) with a fresh deadline: watch the node's pods, then evict. */
    void start() {
        stop();
        generation++;
        active = true;
        evicted.clear();
        evicting.clear();
        refused.clear();
        lastLeft = -1;
        lastWaitDetail = "its pods were not listed yet";
        Duration timeout = ports.settings().drainTimeout();
        backoff = retryPolicy(timeout);
        retries = 0;
        int started = generation;
        deadlineTimer = ports.ticker().setTimer(timeout, () -> {
            deadlineTimer = -1;
            if (current(started)) {
                fail();
            }
        });
        // List at once, so the evictions do not wait for the watch to start; the watch then takes over.
        relist();
        ports.pods().watchPodsOn(name, () -> {
            if (current(started) && watch != null) {
                evaluate(watch.pods());
            }
        }).onComplete(ar -> {
            if (!current(started)) {
                if (ar.succeeded()) {
                    ar.result().close();
                }
                return;
            }
            if (ar.succeeded()) {
                watch = ar.result();
                scheduleRelist(relistMillis());
                evaluate(watch.pods());
            } else {
                say.accept("cannot watch its pods (" + ErrorText.message(ar.cause()) + "); listing them every "
                        + pollMillis() + " ms instead");
            }
        });
    }

    /** Stops the drain: cancels its timers and closes the pod watch. */
    void stop() {
        active = false;
        generation++;
        for (long id : new long[] {deadlineTimer, retryTimer, relistTimer}) {
            if (id >= 0) {
                ports.ticker().cancelTimer(id);
            }
        }
        deadlineTimer = -1;
        retryTimer = -1;
        relistTimer = -1;
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }

    private boolean current(int started) {
        return active && started == generation && draining.getAsBoolean();
    }

    /** Decides from the node's pods: drained, or evict what is not evicted yet, and wait. */
    private void evaluate(List<Pod> pods) {
        List<Pod> waitFor = new ArrayList<>();
        List<Pod> toEvict = new ArrayList<>();
        for (Pod pod : pods) {
            String uid = uid(pod);
            if (DrainSelection.neverEvicted(pod)) {
                continue;
            }
            if (evicted.contains(uid) || evicting.contains(uid)) {
                waitFor.add(pod);
            } else if (!DrainSelection.terminating(pod)) {
                waitFor.add(pod);
                if (!refused.containsKey(uid)) {
                    toEvict.add(pod);
                }
            }
        }
        if (waitFor.isEmpty()) {
            stop();
            say.accept("drained");
            drained.run();
            return;
        }
        if (waitFor.size() != lastLeft) {
            lastLeft = waitFor.size();
            say.accept("draining: " + lastLeft + (lastLeft == 1 ? " pod left" : " pods left"));
        }
        lastWaitDetail = waitDetail(waitFor);
        if (!toEvict.isEmpty()) {
            evictAll(toEvict);
        }
    }

    private void evictAll(List<Pod> toEvict) {
        if (!ports.fence().mayWrite()) {
            return; // fenced: no eviction once the Lease is not certainly held; the lost Lease ends the run
        }
        int started = generation;
        Map<Pod, Future<Eviction>> attempts = new LinkedHashMap<>();
        for (Pod pod : toEvict) {
            evicting.add(uid(pod));
            attempts.put(pod, ports.pods().evict(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
        }
        Future.join(new ArrayList<>(attempts.values())).onComplete(ignored -> {
            if (!current(started)) {
                return;
            }
            for (Map.Entry<Pod, Future<Eviction>> e : attempts.entrySet()) {
                String uid = uid(e.getKey());
                evicting.remove(uid);
                Future<Eviction> f = e.getValue();
                if (f.failed()) {
                    refused.put(uid, DrainSelection.id(e.getKey()) + " (eviction failed: " + ErrorText.message(f.cause()) + ")");
                } else if (f.result() == Eviction.BLOCKED) {
                    refused.put(uid, DrainSelection.id(e.getKey()) + " (eviction refused by a PodDisruptionBudget)");
                } else {
                    evicted.add(uid);
                }
            }
            if (!refused.isEmpty() && retryTimer < 0) {
                retryTimer = ports.ticker().setTimer(Duration.ofMillis(nextBackoff()), () -> {
                    retryTimer = -1;
                    if (current(started)) {
                        refused.clear();
                        refresh();
                    }
                });
            }
            refresh();
        });
    }

    /** Re-evaluates from the watch's view, or lists the pods when there is no watch. */
    private void refresh() {
        if (watch != null) {
            evaluate(watch.pods());
        } else {
            relist();
        }
    }

    /** Lists the node's pods and evaluates them; then schedules the next re-list. */
    private void relist() {
        int started = generation;
        ports.pods().podsOn(name).onComplete(ar -> {
            if (!current(started)) {
                return;
            }
            scheduleRelist(watch != null ? relistMillis() : ar.failed() ? nextBackoff() : pollMillis());
            if (ar.failed()) {
                lastWaitDetail = "cannot list pods: " + ErrorText.message(ar.cause());
                return;
            }
            evaluate(ar.result());
        });
    }

    private void scheduleRelist(long delayMillis) {
        if (relistTimer >= 0) {
            ports.ticker().cancelTimer(relistTimer);
        }
        int started = generation;
        relistTimer = ports.ticker().setTimer(Duration.ofMillis(delayMillis), () -> {
            relistTimer = -1;
            if (current(started)) {
                relist();
            }
        });
    }

    private void fail() {
        String detail = lastWaitDetail;
        stop();
        failed.accept("drain did not finish within " + NodeStep.seconds(ports.settings().drainTimeout()) + ": " + detail);
    }

    private String waitDetail(List<Pod> waitFor) {
        List<String> left = new ArrayList<>(refused.values());
        for (Pod pod : waitFor) {
            String uid = uid(pod);
            if (evicted.contains(uid)) {
                left.add(DrainSelection.id(pod) + " (evicted, still terminating)");
            } else if (evicting.contains(uid)) {
                left.add(DrainSelection.id(pod) + " (eviction requested)");
            }
        }
        return String.join(", ", left);
    }

    /** The safety-net re-list period while the watch runs: a quarter of the drain timeout, at most {@link #RELIST}. */
    private long relistMillis() {
        return Math.min(RELIST.toMillis(), Math.max(pollMillis(), ports.settings().drainTimeout().toMillis() / 4));
    }

    /** The re-list period without a watch. */
    private long pollMillis() {
        return Math.min(1000, Math.max(20, ports.settings().drainTimeout().toMillis() / 20));
    }

    private static String uid(Pod pod) {
        String uid = pod.getMetadata().getUid();
        return uid != null ? uid : DrainSelection.id(pod);
    }
}
