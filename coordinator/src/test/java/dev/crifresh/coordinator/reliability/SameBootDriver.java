package dev.crifresh.coordinator.reliability;

import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.fixture.ApiFixture;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A reboot that silently did not happen: the node blips NotReady and comes back Ready with the boot id
 * it had (a kubelet restart, a driver that hit the wrong machine).
 */
final class SameBootDriver implements RebootDriver, AutoCloseable {
    private final ApiFixture cluster;
    private final Map<String, Integer> calls = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    private final java.util.List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;

    SameBootDriver(ApiFixture cluster) {
        this.cluster = cluster;
    }

    @Override
    public void reboot(Node node) {
        String name = node.getMetadata().getName();
        calls.merge(name, 1, Integer::sum);
        executor.schedule(() -> setReady(name, false), 5, TimeUnit.MILLISECONDS);
        executor.schedule(() -> setReady(name, true), 60, TimeUnit.MILLISECONDS);
    }

    /** An exception would vanish in the executor: recorded, and {@link #close()} fails the test with it. */
    private void setReady(String name, boolean ready) {
        try {
            cluster.setReady(name, ready);
        } catch (RuntimeException e) {
            if (!closed) {
                failures.add(name + " not set Ready " + ready + ": " + e);
            }
        }
    }

    int calls(String node) {
        return calls.getOrDefault(node, 0);
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
        if (!failures.isEmpty()) {
            throw new AssertionError("the same-boot driver failed: " + failures);
        }
    }
}
