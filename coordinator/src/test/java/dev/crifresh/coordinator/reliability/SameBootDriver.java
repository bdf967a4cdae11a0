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

    SameBootDriver(ApiFixture cluster) {
        this.cluster = cluster;
    }

    @Override
    public void reboot(Node node) {
        String name = node.getMetadata().getName();
        calls.merge(name, 1, Integer::sum);
        executor.schedule(() -> cluster.setReady(name, false), 5, TimeUnit.MILLISECONDS);
        executor.schedule(() -> cluster.setReady(name, true), 60, TimeUnit.MILLISECONDS);
    }

    int calls(String node) {
        return calls.getOrDefault(node, 0);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
