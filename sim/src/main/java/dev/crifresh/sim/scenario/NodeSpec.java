package dev.crifresh.sim.scenario;

import java.time.Duration;
import java.util.List;

/**
 * One node as the deploy job finds it (docs/scenarios.md). Times are relative: the boot happened
 * {@code bootedAgo} before the simulation starts, containerd and the newest config write are relative
 * to that boot ({@code configWrittenAfterBoot} may be negative: a file that looks older than the boot).
 *
 * @param configUpdate null when the platform renders nothing during the run
 * @param etcd         the node's etcd member (control planes only; workers run none)
 * @param batchJob     a running batch-job pod on the node, or null
 * @param containerdCredential the credential the node's running containerd loaded (and pulls with) when it is
 *                     not what the config holds, or null: containerd loaded the config's credential
 * @param containerdCredentialSticks containerd loads {@code containerdCredential} at every start, whatever the
 *                     config holds — a fault the agent cannot see (it proves the file, not what containerd uses)
 * @param joinsAfter   null: the node exists when the run starts; else it joins (an autoscaler's scale-out: its
 *                     Node is created and its agent started) this long after the coordinator starts, and its
 *                     times ({@code bootedAgo} …) count from that moment
 * @param clock        the node's wall clock at boot until time sync steps it ({@link ClockSpec#CORRECT}: always right)
 * @param talosVersion the Talos version the node runs: 1.14+ restarts containerd itself on a config change; its Node
 *                     reports it as {@code Talos (<version>)} unless {@code osImage} says otherwise
 * @param osImage      what the node's kubelet reports in {@code status.nodeInfo.osImage}, any string (a custom build,
 *                     another OS, or empty); null: {@code Talos (<talosVersion>)}. It changes only what crifresh reads
 *                     from the Node, never how the simulated node behaves ({@code talosVersion} decides that)
 * @param barePods     pods without an owner on the node ({@code <node>-bare-<i>}): a drain refuses them without --force
 * @param emptyDirPods ReplicaSet pods with an emptyDir volume ({@code <node>-scratch-<i>}): refused without
 *                     --delete-emptydir-data
 * @param taints       taints the Node carries from the start
 * @param deletedAfter null: the Node stays; else its Node object is deleted this long after the coordinator starts (a
 *                     scale-down), with its pods
 */
public record NodeSpec(
        String name,
        Role role,
        Duration bootedAgo,
        Duration containerdStartedAfterBoot,
        Duration configWrittenAfterBoot,
        CredentialChoice credential,
        ConfigUpdate configUpdate,
        Marker marker,
        AgentMode agent,
        boolean ready,
        boolean cordoned,
        RebootBehaviour reboot,
        int pods,
        EtcdMember etcd,
        BatchJobSpec batchJob,
        Credential containerdCredential,
        boolean containerdCredentialSticks,
        Duration joinsAfter,
        ClockSpec clock,
        TalosVersion talosVersion,
        String osImage,
        int barePods,
        int emptyDirPods,
        List<TaintSpec> taints,
        Duration deletedAfter) {

    public NodeSpec {
        taints = taints == null ? List.of() : List.copyOf(taints);
    }

    /** What the node's kubelet reports in {@code status.nodeInfo.osImage}. */
    public String reportedOsImage() {
        return osImage != null ? osImage : talosVersion.osImage();
    }
}
