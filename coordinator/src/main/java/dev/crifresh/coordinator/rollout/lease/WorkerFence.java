package dev.crifresh.coordinator.rollout.lease;

import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;

/**
 * The {@link Fence} checked once more on the worker thread, right before a blocking write is sent (node patches,
 * evictions, Events, the reboot driver): the check on the event loop that queued the call can be stale by the time
 * a worker runs it — the run may end, or its Lease hold lapse, in between. A refused write fails with
 * {@link GuardedPatch.Fenced} and sends nothing. The fence's state is safe to read from a worker thread.
 */
public final class WorkerFence {
    private WorkerFence() {
    }

    /** The gate for the kube write paths ({@link dev.crifresh.coordinator.kube.NodeOps#gated}, …). */
    public static WriteGate gate(Fence fence) {
        return () -> {
            if (!fence.mayWrite()) {
                throw new GuardedPatch.Fenced();
            }
        };
    }

    /** The driver, with the fence checked on the worker right before each reboot request (its checks are reads). */
    public static RebootDriver driver(RebootDriver driver, Fence fence) {
        WriteGate gate = gate(fence);
        return new RebootDriver() {
            @Override
            public void reboot(Node node) throws Exception {
                gate.check();
                driver.reboot(node);
            }

            @Override
            public void check(Node node, List<Node> selected) throws Exception {
                driver.check(node, selected);
            }
        };
    }
}
