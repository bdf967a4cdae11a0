package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Future;
import java.time.Clock;
import java.util.Objects;

/**
 * What a node's roll works through: its settings ({@link RollSettings}), its write paths (already fenced on the worker, built once by
 * the run), the fence every side effect passes first, the API retry, and time. Every part is required: a roll without
 * one would be unguarded or blind, so there is nothing to default.
 *
 * @param nodes  node operations; a successful patch updates the run's view of the node at once
 * @param reboot requests a node's reboot from the driver (on a worker thread: the driver blocks)
 * @param clock  the wall clock: when phase rebooting is recorded ({@code crifresh.dev/recorded-at})
 * @param ticker time and timers
 */
public record RollPorts(RollSettings settings, NodeOps nodes, PodOps pods, Reboot reboot, Fence fence, ApiRetry retry,
                        Ticker ticker, Clock clock) implements GuardedPatch.Host {

    /** Requests a node's reboot; completes once the driver has sent the request. */
    @FunctionalInterface
    public interface Reboot {
        Future<Void> request(Node node);
    }

    public RollPorts {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(nodes, "nodes");
        Objects.requireNonNull(pods, "pods");
        Objects.requireNonNull(reboot, "reboot");
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(ticker, "ticker");
        Objects.requireNonNull(clock, "clock");
    }
}
