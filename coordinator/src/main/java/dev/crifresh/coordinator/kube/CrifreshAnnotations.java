package dev.crifresh.coordinator.kube;

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
}
