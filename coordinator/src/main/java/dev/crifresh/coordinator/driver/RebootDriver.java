package dev.crifresh.coordinator.driver;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;

/**
 * Requests a node's reboot. Called on a worker thread; returns once the reboot was requested, not when
 * the node is back (the coordinator watches the Node for a new boot id).
 */
@FunctionalInterface
public interface RebootDriver {

    void reboot(Node node) throws Exception;

    /**
     * Called for every node that is to be rebooted, before the first node is touched; throws with a
     * message naming the problem when this driver cannot reboot that node (e.g. no unique InternalIP).
     *
     * @param selected every node the run considers
     */
    default void check(Node node, List<Node> selected) throws Exception {
    }
}
