package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.Unused;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.time.Ticker;
import java.time.Clock;

/** The ports of a roll whose drain is under test: its settings, pods and time, the fence open; no node call, no reboot. */
final class DrainPorts {
    private DrainPorts() {
    }

    static RollPorts of(CoordinatorSettings settings, PodOps pods, Ticker ticker) {
        RollPorts.Reboot noReboot = node -> {
            throw new AssertionError("a drain requests no reboot");
        };
        return new RollPorts(RollSettings.of(settings), Unused.of(NodeOps.class), pods, noReboot, Fence.open(), new ApiRetry(ticker, Fence.open()),
                ticker, Clock.systemUTC());
    }
}
