package dev.crifresh.agent.expire;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.time.Instant;
import java.util.Map;

/** Real signed attestations and the conditions that carry them, as an agent writes them. */
final class Tokens {
    private static final SigningKey KEY;

    static {
        try {
            KEY = Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(Ed25519Keys.generate()));
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Tokens() {
    }

    static String token(String node, Verdict verdict, Instant iat, Instant exp) {
        AttestationClaims claims = new AttestationClaims(AttestationClaims.VERSION, AttestationClaims.ISSUER, node,
                "uid-" + node, "boot-" + node, iat, exp, verdict, "ContainerdStartedAfterConfig",
                verdict == Verdict.FRESH ? Proof.values()[0] : null, null, null, Map.of(), 0, "test");
        return new AttestationSigner(KEY).sign(claims);
    }

    static NodeCondition condition(String status, String message) {
        return new NodeConditionBuilder().withType(ConditionContract.CONDITION_TYPE).withStatus(status)
                .withReason("ContainerdStartedAfterConfig").withMessage(message)
                .withLastHeartbeatTime("2026-01-01T00:00:00Z").withLastTransitionTime("2026-01-01T00:00:00Z").build();
    }

    /** The condition an agent writes for {@code verdict}, attested from {@code iat} to {@code exp}. */
    static NodeCondition attested(String node, Verdict verdict, Instant iat, Instant exp) {
        return condition(verdict.conditionStatus(),
                AttestationMessage.format("containerd started after its config", token(node, verdict, iat, exp)));
    }
}
