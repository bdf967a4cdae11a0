package dev.crifresh.sim.world;

import dev.crifresh.sim.node.AgentLauncher;
import dev.crifresh.sim.node.HostRoot;
import dev.crifresh.sim.node.SimulatedHostClock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Records what the cluster asks of its agent launcher; starts nothing. For tests of the platform alone. */
final class RecordingLauncher implements AgentLauncher {
    record Start(String node, HostRoot host, SimulatedHostClock clock) {
    }

    final List<Start> starts = new CopyOnWriteArrayList<>();
    final AtomicInteger stops = new AtomicInteger();

    @Override
    public RunningAgent start(String nodeName, HostRoot host, SimulatedHostClock clock) {
        starts.add(new Start(nodeName, host, clock));
        return stops::incrementAndGet;
    }

    List<String> startedNodes() {
        return starts.stream().map(Start::node).toList();
    }
}
