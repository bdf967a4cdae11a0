package dev.crifresh.common.kube;

/** Names shared by the agent, the coordinator, the chart and the simulator. */
public final class ConditionContract {
    private ConditionContract() {
    }

    /** The Node condition type the agent owns. */
    public static final String CONDITION_TYPE = "ContainerdConfigFresh";

    /** Separates the human sentence from the token in the condition message. */
    public static final String ATTESTATION_MARKER = "; attestation=";

    /** The machine-config marker annotation crifresh reports but never trusts. */
    public static final String DEFAULT_MARKER_ANNOTATION = "crifresh.dev/desired-revision";

    /** The registry whose credential is checked by default. */
    public static final String DEFAULT_REGISTRY = "ghcr.io";
}
