package dev.crifresh.agent.expire;

import io.fabric8.kubernetes.api.model.NodeCondition;
import java.time.Instant;

/** What {@link ExpiryRule} says about one Node's condition. */
public sealed interface Judgement {
    /** Nothing to do: no condition, or it already says {@code Unknown}. */
    record Leave(String why) implements Judgement {
    }

    /** The condition's attestation still holds until {@code exp}. */
    record Live(Instant exp) implements Judgement {
    }

    /**
     * The condition claims {@code True} or {@code False} without a live proof: write {@code Unknown}/{@code AttestationExpired}
     * with {@code message}, guarded by {@code before} still being the Node's entry.
     */
    record Downgrade(NodeCondition before, String message) implements Judgement {
    }
}
