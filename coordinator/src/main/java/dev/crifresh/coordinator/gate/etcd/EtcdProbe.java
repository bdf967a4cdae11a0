package dev.crifresh.coordinator.gate.etcd;

import java.util.List;

/** Asks how etcd is. Blocking: called on a worker thread. */
@FunctionalInterface
public interface EtcdProbe {
    /**
     * @param controlPlanes every control-plane node of the cluster
     * @param node          the control plane about to be rebooted, or just returned
     */
    EtcdHealth check(List<ControlPlane> controlPlanes, ControlPlane node) throws Exception;
}
