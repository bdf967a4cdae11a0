package dev.crifresh.coordinator.kube;

import java.util.List;

/** Annotations the coordinator writes on Nodes it works on. */
public final class CrifreshAnnotations {
    private CrifreshAnnotations() {
    }

    /** Ownership: {@code <runId>/<phase>} while a run works on the node. */
    public static final String ROLLOUT = "crifresh.dev/rollout";
    /** {@code true} when crifresh cordoned the node, so only then is it uncordoned. */
    public static final String CORDONED = "crifresh.dev/cordoned";
    /** The boot id before the reboot was requested, so a resumed run can tell whether it happened. */
    public static final String BOOT_ID = "crifresh.dev/boot-id";
    /**
     * When phase rebooting and the boot id were recorded (RFC 3339, the recording run's clock), so that a later run
     * can tell a node Ready the whole time since from one that went down in between.
     */
    public static final String RECORDED_AT = "crifresh.dev/recorded-at";
    /** Why a node is rebooted again: an earlier run's recorded reboot was never carried out (in words, with the claim). */
    public static final String NOT_CARRIED_OUT = "crifresh.dev/reboot-not-carried-out";

    /**
     * {@code true} when crifresh set the cluster autoscaler's {@link ClusterAutoscaler#SCALE_DOWN_DISABLED} with its claim,
     * so only then does the release remove that annotation (like {@link #CORDONED} for the cordon).
     */
    public static final String SCALE_DOWN_DISABLED = "crifresh.dev/scale-down-disabled";

    /** Every annotation the coordinator writes: a release drops each the node carries. */
    public static final List<String> ALL = List.of(ROLLOUT, CORDONED, BOOT_ID, RECORDED_AT, NOT_CARRIED_OUT, SCALE_DOWN_DISABLED);
}
