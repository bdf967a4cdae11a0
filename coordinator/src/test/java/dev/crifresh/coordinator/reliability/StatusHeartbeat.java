package dev.crifresh.coordinator.reliability;

import dev.crifresh.coordinator.fixture.ApiFixture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Agents (or a kubelet) heartbeating on a node's status back to back, from {@link #WRITERS} threads: every
 * write changes the node's resourceVersion and nothing the rollout decides on. Runs until closed.
 */
final class StatusHeartbeat implements AutoCloseable {
    static final int WRITERS = 4;
    private final java.util.List<Thread> threads = new java.util.ArrayList<>();
    private final AtomicInteger beats = new AtomicInteger();
    private volatile boolean stop;

    StatusHeartbeat(ApiFixture cluster, String node) {
        for (int i = 0; i < WRITERS; i++) {
            threads.add(start(cluster, node, i));
        }
    }

    private Thread start(ApiFixture cluster, String node, int i) {
        Thread thread = new Thread(() -> {
            while (!stop) {
                try {
                    int n = beats.incrementAndGet();
                    cluster.patchStatus(node, "[{\"op\":\"add\",\"path\":\"/status/nodeInfo/kernelVersion\",\"value\":\"6.12.0-beat-"
                            + n + "\"}]");
                } catch (RuntimeException e) {
                    if (stop) {
                        return;
                    }
                }
            }
        }, "heartbeat-" + node + "-" + i);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    int beats() {
        return beats.get();
    }

    @Override
    public void close() {
        stop = true;
        try {
            for (Thread t : threads) {
                t.join(10_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the heartbeat writers stopped", e);
        }
    }
}
