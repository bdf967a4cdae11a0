package dev.crifresh.agent.expire;

import dev.crifresh.agent.publish.ConditionPatch;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationPolicy;
import dev.crifresh.common.attest.ClaimsJson;
import dev.crifresh.common.attest.Jws;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether a Node's ContainerdConfigFresh condition outlived its proof. Pure. A {@code True} or {@code False}
 * condition is downgraded once {@code now} reaches its attestation's {@code exp} (read with the coordinator's
 * parsing: {@link AttestationMessage}, {@link Jws}, {@link ClaimsJson}; the signature is the coordinator's to
 * check), or at once when it carries no readable attestation: the agent never writes either without one.
 * {@code exp} counts at most {@link AttestationPolicy#DEFAULT_MAX_VALIDITY} after {@code iat}, the longest
 * lifetime the coordinator accepts. An {@code Unknown} condition is left as it is: this rule only downgrades.
 */
public final class ExpiryRule {
    public static final String REASON = "AttestationExpired";
    public static final String UNKNOWN = "Unknown";

    private ExpiryRule() {
    }

    public static Judgement judge(Node node, Instant now, String leader) {
        NodeCondition condition = ConditionPatch.ours(node);
        if (condition == null) {
            return new Judgement.Leave("no " + ConditionContract.CONDITION_TYPE + " condition");
        }
        String status = condition.getStatus();
        if (!"True".equals(status) && !"False".equals(status)) {
            return new Judgement.Leave("the condition says " + status);
        }
        Optional<String> token = AttestationMessage.token(condition.getMessage());
        if (token.isEmpty()) {
            return new Judgement.Downgrade(condition, "the condition said " + status
                    + " without an attestation; marked Unknown by the expiry leader " + leader);
        }
        AttestationClaims claims;
        try {
            claims = ClaimsJson.read(new String(Jws.parse(token.get()).payload(), StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return new Judgement.Downgrade(condition, "the condition said " + status
                    + " with an attestation that cannot be read (" + e.getMessage()
                    + "); marked Unknown by the expiry leader " + leader);
        }
        Instant exp = claims.exp();
        Instant longest = claims.iat().plus(AttestationPolicy.DEFAULT_MAX_VALIDITY);
        if (exp.isAfter(longest)) {
            exp = longest;
        }
        if (now.isBefore(exp)) {
            return new Judgement.Live(exp);
        }
        // The token stays: the coordinator reads the expiry from it, as before the downgrade.
        return new Judgement.Downgrade(condition, AttestationMessage.format("the attestation (" + status
                + ") expired at " + exp + " and no agent renewed it; marked Unknown by the expiry leader "
                + leader, token.get()));
    }
}
