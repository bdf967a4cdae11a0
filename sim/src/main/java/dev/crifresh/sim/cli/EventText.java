package dev.crifresh.sim.cli;

import dev.crifresh.sim.base.SimEvent;

/** One human line per simulated platform event. */
final class EventText {
    private EventText() {
    }

    static String of(SimEvent e) {
        String what = switch (e.kind()) {
            case REBOOT_REQUESTED -> "reboot requested (" + e.detail() + ")";
            case REBOOTED -> "back from reboot: " + e.detail() + "; config rendered, then containerd started";
            case NEVER_RETURNED -> "went down and does not come back";
            case CONFIG_WRITTEN -> "the platform rendered a new CRI config: " + e.detail();
            case CONTAINERD_RESTARTED -> "containerd restarted after the config change (" + e.detail() + ")";
            case POD_EVICTED -> "pod " + e.detail() + " evicted";
            case FORBIDDEN_EVICTION -> "SIMULATION CHECK FAILED: pod " + e.detail()
                    + " is a DaemonSet or mirror pod and was asked to be evicted";
            case AGENT_STARTED -> "agent started (" + e.detail() + ")";
            case AGENT_STOPPED -> "agent stopped";
            case HOSTILE_ATTESTATION -> "its condition holds an attestation no live agent wrote (" + e.detail() + ")";
            case IMAGE_PULLED -> "kubelet pulled " + e.detail() + " with the credential its containerd loaded";
            case IMAGE_PULL_FAILED -> "kubelet could not pull " + e.detail()
                    + ": the registry refused the credential its containerd loaded";
            case ALERT_CLEARED -> "alert " + e.detail() + " stopped firing";
            case POD_SCHEDULED -> "scheduler placed " + e.detail() + " here";
            case POD_UNSCHEDULABLE -> "scheduler: " + e.detail();
            case NODE_JOINED -> "joined the cluster (" + e.detail() + ")";
            case NODE_DELETED -> "deleted from the cluster (" + e.detail() + ")";
            case BATCH_JOB_FINISHED -> "batch job pod " + e.detail() + " completed";
            case PLATFORM_ERROR -> "SIMULATION ERROR: " + e.detail();
        };
        return (e.node() == null ? "cluster" : e.node()) + ": " + what;
    }

    /** Whether the line is worth showing without --verbose. */
    static boolean notable(SimEvent e) {
        return switch (e.kind()) {
            case POD_EVICTED, POD_SCHEDULED, AGENT_STARTED, AGENT_STOPPED -> false;
            default -> true;
        };
    }
}
