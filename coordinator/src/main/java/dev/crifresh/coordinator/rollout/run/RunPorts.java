package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.kube.EventOps;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.rollout.lease.LeaseFence;
import dev.crifresh.coordinator.rollout.lease.WorkerFence;
import dev.crifresh.coordinator.rollout.node.RollPorts;
import dev.crifresh.coordinator.rollout.node.RollSettings;
import dev.crifresh.coordinator.rollout.view.PatchEchoNodeOps;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The run's write paths, each fenced once, here: every blocking write checks the fence again on the worker right
 * before it is sent ({@link WorkerFence}, the one decorator that applies it), and every node patch's answer goes to
 * the run's view at once ({@link PatchEchoNodeOps}).
 *
 * @param nodes   the node path of the run: fenced by the Lease hold while the run is open
 * @param cleanup the node path that takes crifresh's taints off also while the run ends ({@link LeaseFence#closing()})
 * @param events  Events are settled also while the run ends: fenced by {@link LeaseFence#closing()}
 */
record RunPorts(GuardedPatch.Target nodes, GuardedPatch.Target cleanup, PodOps pods, RebootDriver driver, EventOps events) {

    static RunPorts fenced(NodeOps nodes, PodOps pods, RebootDriver driver, EventOps events, LeaseFence fence, Ticker ticker,
                           Duration leaseDuration, Consumer<Node> patched) {
        Fence closing = fence.closing();
        return new RunPorts(nodePath(nodes, fence, ticker, leaseDuration, patched),
                nodePath(nodes, closing, ticker, leaseDuration, patched),
                pods.gated(WorkerFence.gate(fence)),
                WorkerFence.driver(driver, fence),
                events.gated(WorkerFence.gate(closing)));
    }

    /**
     * The ports of each node's roll: the run's node path and pods, and its reboot request, on a worker thread (the
     * driver blocks).
     */
    RollPorts forRolls(Vertx vertx, RollSettings settings, Ticker ticker, Clock clock) {
        RollPorts.Reboot reboot = node -> vertx.executeBlocking(() -> {
            driver.reboot(node);
            return null;
        }, false);
        return new RollPorts(settings, nodes.nodes(), pods, reboot, nodes.fence(), nodes.retry(), ticker, clock);
    }

    /** The one node write path: the API's operations, fenced on the worker, echoed to the view, retried while fenced. */
    private static GuardedPatch.Target nodePath(NodeOps api, Fence fence, Ticker ticker, Duration leaseDuration,
                                                Consumer<Node> patched) {
        NodeOps ops = new PatchEchoNodeOps(api.gated(WorkerFence.gate(fence)), patched);
        return new GuardedPatch.Target(ops, new ApiRetry(ticker, fence, leaseDuration), fence, ticker);
    }
}
