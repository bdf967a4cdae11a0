package dev.crifresh.coordinator.events;

/**
 * The reasons of the Kubernetes Events the coordinator records on a Node, in the order a node meets them.
 * {@code kubectl describe node} and event exporters show them.
 */
public enum EventReason {
    /** The stale node got crifresh's taint, so evicted pods avoid it. */
    /** With {@code --action auto}: what the node's Talos version decided ({@code reboot} or {@code wait-restart}). */
    ACTION("CrifreshAction", false),
    TAINTED("CrifreshTainted", false),
    /** No fresh schedulable node exists: this stale worker is rolled first, alone. */
    SEED("CrifreshSeed", false),
    CORDONED("CrifreshCordoned", false),
    DRAINING("CrifreshDraining", false),
    DRAINED("CrifreshDrained", false),
    REBOOT_REQUESTED("CrifreshRebootRequested", false),
    RETURNED("CrifreshReturned", false),
    FRESH("CrifreshFresh", false),
    UNCORDONED("CrifreshUncordoned", false),
    /** crifresh's taint was removed (after the reboot, or when the run ended). */
    UNTAINTED("CrifreshUntainted", false),
    /** The node joined while the run was under way. */
    JOINED("CrifreshJoined", false),
    FAILED("CrifreshFailed", true),
    /** A node to reboot left alone: its drain would lose pods without --force / --delete-emptydir-data, or the coordinator runs on it. */
    NOT_ROLLED("CrifreshNotRolled", true),
    /** An earlier run's recorded reboot of the node was never carried out: released, rebooted again within the budget. */
    NOT_CARRIED_OUT("CrifreshRebootNotCarriedOut", true),
    /** An Alertmanager silence for the node could not be created or expired (a warning, never a stop). */
    SILENCE_FAILED("CrifreshSilenceFailed", true);

    private final String reason;
    private final boolean warning;

    EventReason(String reason, boolean warning) {
        this.reason = reason;
        this.warning = warning;
    }

    /** The Event's {@code reason}, e.g. {@code CrifreshCordoned}. */
    public String reason() {
        return reason;
    }

    /** The Event's {@code type}: {@code Warning} for failures, else {@code Normal}. */
    public String type() {
        return warning ? "Warning" : "Normal";
    }
}
