package dev.crifresh.agent.publish;

import dev.crifresh.common.evidence.RuleSettings;
import java.time.Duration;

/**
 * What the publisher reads of the agent's settings ({@code AgentSettings} implements it), so that publishing does
 * not depend on the package that wires the agent together.
 */
public interface PublishSettings {
    /** The Node whose status the publisher patches. */
    String nodeName();

    /** Attestation lifetime ({@code exp = iat + validity}). */
    Duration validity();

    /** Margin and Talos mode for the evidence rules (the margin goes into the claims). */
    RuleSettings rules();

    /** Published in the attestation's {@code agent} claim. */
    String agentVersion();
}
