package dev.crifresh.coordinator.rollout;

import dev.crifresh.coordinator.kube.PodOps.Eviction;
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
 * The drain step of a {@link NodeRoll}: evict every pod but DaemonSet, mirror and already-terminating pods
 * through the Eviction API, retry PDB refusals with backoff, and wait until the evicted pods are gone, all
 * within {@code --drain-timeout}. Runs on the run's context; every asynchronous answer is dropped unless
 * the roll is still draining.
 */
final class NodeDrain {
    private final RollHost host;
    private final String name;
    private final BooleanSupplier draining;
    private final Consumer<String> say;
    private final Runnable drained;
    private final Consumer<String> failed;

    private final Set<String> evicted = new HashSet<>();
    private long drainDeadline;
    private Backoff backoff;
    private int lastLeft = -1;
    private String lastWaitDetail;
    private boolean busy;
    private long timer = -1;

    /**
     * @param draining whether the roll is still in its drain step
     * @param say      a progress line about the node
     * @param drained  every pod to evict is gone
     * @param failed   the drain did not finish in time (the reason)
     */
    NodeDrain(RollHost host, String name, BooleanSupplier draining, Consumer<String> say, Runnable drained,
              Consumer<String> failed) {
        this.host = host;
        this.name = name;
        this.draining = draining;
        this.say = say;
        this.drained = drained;
        this.failed = failed;
    }

    /** Whether a Kubernetes call of the drain is in flight. */
    boolean busy() {
        return busy;
    }

    /** Starts a drain (again) with a fresh deadline. */
    void start() {
        evicted.clear();
        lastLeft = -1;
        Duration timeout = host.settings().drainTimeout();
        drainDeadline = System.nanoTime() + timeout.toNanos();
        backoff = Backoff.forTimeout(timeout);
        drainStep();
    }

    /** Cancels the pending retry timer, if any. */
    void cancelTimer() {
        if (timer >= 0) {
            host.vertx().cancelTimer(timer);
            timer = -1;
        }
    }

    private void drainStep() {
        busy = true;
        host.pods().podsOn(name).onComplete(ar -> {
            busy = false;
            if (!draining.getAsBoolean()) {
                return;
            }
            if (ar.failed()) {
                scheduleDrainStep(backoff.next(), "cannot list pods: " + ErrorText.message(ar.cause()));
                return;
            }
            List<Pod> waitFor = new ArrayList<>();
            List<Pod> toEvict = new ArrayList<>();
            for (Pod pod : ar.result()) {
                String uid = uid(pod);
                if (DrainSelection.neverEvicted(pod)) {
                    continue;
                }
                if (evicted.contains(uid)) {
                    waitFor.add(pod);
                } else if (!DrainSelection.terminating(pod)) {
                    waitFor.add(pod);
                    toEvict.add(pod);
                }
            }
            if (waitFor.isEmpty()) {
                say.accept("drained");
                drained.run();
                return;
            }
            if (!host.leaseHeld()) {
                return; // fenced: no eviction once the Lease is not certainly held; the lost Lease ends the run
            }
            if (waitFor.size() != lastLeft) {
                lastLeft = waitFor.size();
                say.accept("draining: " + lastLeft + (lastLeft == 1 ? " pod left" : " pods left"));
            }
            evictAll(toEvict, waitFor);
        });
    }

    private void evictAll(List<Pod> toEvict, List<Pod> waitFor) {
        Map<Pod, Future<Eviction>> attempts = new LinkedHashMap<>();
        for (Pod pod : toEvict) {
            attempts.put(pod, host.pods().evict(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
        }
        busy = true;
        Future.join(new ArrayList<>(attempts.values())).onComplete(ignored -> {
            busy = false;
            if (!draining.getAsBoolean()) {
                return;
            }
            List<String> blocked = new ArrayList<>();
            for (Map.Entry<Pod, Future<Eviction>> e : attempts.entrySet()) {
                Future<Eviction> f = e.getValue();
                if (f.failed()) {
                    blocked.add(DrainSelection.id(e.getKey()) + " (eviction failed: " + ErrorText.message(f.cause()) + ")");
                } else if (f.result() == Eviction.BLOCKED) {
                    blocked.add(DrainSelection.id(e.getKey()) + " (eviction refused by a PodDisruptionBudget)");
                } else {
                    evicted.add(uid(e.getKey()));
                }
            }
            List<String> left = new ArrayList<>(blocked);
            for (Pod pod : waitFor) {
                if (evicted.contains(uid(pod))) {
                    left.add(DrainSelection.id(pod) + " (evicted, still terminating)");
                }
            }
            long delay = blocked.isEmpty() ? pollMillis() : backoff.next();
            scheduleDrainStep(delay, String.join(", ", left));
        });
    }

    private void scheduleDrainStep(long delayMillis, String left) {
        long remaining = (drainDeadline - System.nanoTime()) / 1_000_000;
        if (remaining <= 0) {
            failed.accept("drain did not finish within " + NodeRoll.seconds(host.settings().drainTimeout()) + ": " + left);
            return;
        }
        lastWaitDetail = left;
        timer = host.vertx().setTimer(Math.max(1, Math.min(delayMillis, remaining)), id -> {
            timer = -1;
            if (draining.getAsBoolean()) {
                if (System.nanoTime() >= drainDeadline) {
                    failed.accept("drain did not finish within " + NodeRoll.seconds(host.settings().drainTimeout()) + ": " + lastWaitDetail);
                } else {
                    drainStep();
                }
            }
        });
    }

    private long pollMillis() {
        return Math.min(1000, Math.max(20, host.settings().drainTimeout().toMillis() / 20));
    }

    private static String uid(Pod pod) {
        String uid = pod.getMetadata().getUid();
        return uid != null ? uid : DrainSelection.id(pod);
    }
}
