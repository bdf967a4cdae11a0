package dev.crifresh.sim.base;

import java.time.Instant;

/** Something the simulated platform did, in order; the demo tells them and the tests assert on them. */
public record SimEvent(Instant at, String node, Kind kind, String detail) {

    public enum Kind {
        /** The coordinator's reboot driver asked for a reboot; detail says whether the config held the desired credential. */
        REBOOT_REQUESTED,
        /** The node is back: new boot id, config rendered, containerd started, Ready. */
        REBOOTED,
        /** The node went down and does not come back. */
        NEVER_RETURNED,
        /** The platform rewrote the node's CRI config (a machine-config change). */
        CONFIG_WRITTEN,
        /** The platform restarted containerd after a config change (Talos >= 1.14). */
        CONTAINERD_RESTARTED,
        POD_EVICTED,
        /** Someone asked to evict a DaemonSet or mirror pod, which a drain must skip. */
        FORBIDDEN_EVICTION,
        AGENT_STARTED,
        AGENT_STOPPED,
        /** A condition not written by a live agent (forged, tampered, copied, from an earlier boot, expired). */
        HOSTILE_ATTESTATION,
        /** The kubelet pulled a pod's image with the credential the node's running containerd loaded. */
        IMAGE_PULLED,
        /** The registry refused that credential (a revoked one): the pod waits in ErrImagePull. */
        IMAGE_PULL_FAILED,
        /** A simulated Prometheus alert stopped firing. */
        ALERT_CLEARED,
        /** The simulated scheduler bound a replacement of an evicted ReplicaSet pod to the node. */
        POD_SCHEDULED,
        /** No node can take a replacement pod now (all cordoned, NotReady or tainted): it waits, Pending. */
        POD_UNSCHEDULABLE,
        /** The node joined the cluster during the run (an autoscaler's scale-out): Node created, agent started. */
        NODE_JOINED,
        /** The node's Node object was deleted during the run (a scale-down): its pods and its agent are gone with it. */
        NODE_DELETED,
        /** A batch-job pod completed and is gone. */
        BATCH_JOB_FINISHED,
        /** The simulation itself failed to do something (the node then never attests); detail says what. */
        PLATFORM_ERROR
    }
}
