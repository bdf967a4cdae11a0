package dev.crifresh.coordinator.classify;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationPolicy;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.ExpectedNode;
import dev.crifresh.common.attest.VerificationResult;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.common.registry.RegistryHosts;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * Turns a Node and its attestation into a {@link Classification} (docs/coordinator.md, "Classification"). Pure: no I/O, the time
 * is passed in. Order of the checks, each failing toward a reboot:
 * <ol>
 *   <li>more than one {@code ContainerdConfigFresh} condition on the Node → {@code unknown}
 *       ({@code DuplicateCondition}): never pick one of them;</li>
 *   <li>the attestation must verify against the Node (name, UID, boot id, condition status) with a
 *       trusted key — otherwise {@code unknown} with the verifier's failure as the reason;</li>
 *   <li>an agent that says {@code unknown} → {@code unknown}; a {@code fresh} that names none of the proofs
 *       (ordering, content, runtime-status) → {@code unknown} ({@code FreshWithoutProof}); a {@code fresh} without the
 *       {@code containerd} and {@code config} claims it was decided on → {@code unknown}
 *       ({@code FreshWithoutEvidence}); a {@code fresh} decided with a margin below the policy's floor →
 *       {@code unknown} ({@code MarginBelowFloor});</li>
 *   <li>a {@code stale} whose reason is one a reboot cannot fix ({@code RegistryKeyNeverMatched},
 *       {@code RegistryAuthsOverrideConfigs}, {@code HostsTomlRedirectsPulls}: pulls never send the credential the
 *       files spell) → {@code config-pending} with the agent's reason, whatever the fingerprint says;</li>
 *   <li>the attested config must hold the desired credential for the registry — otherwise
 *       {@code config-pending}, whether containerd is fresh or stale: a reboot cannot help until the
 *       config holds it;</li>
 *   <li>then the agent's verdict: {@code fresh} or {@code stale}.</li>
 * </ol>
 * The machine-config marker is read only for the report.
 */
public final class NodeClassifier {
    public static final String CONFIG_PENDING_REASON = "DesiredCredentialNotInConfig";
    /**
     * The agent's stale reasons a reboot cannot fix (pulls never send the credential the files spell): such a node is
     * config-pending, never rebooted, and the report names the agent's reason.
     */
    static final Set<String> REBOOT_DOES_NOT_FIX = Set.of(Reason.REGISTRY_KEY_NEVER_MATCHED.code(),
            Reason.REGISTRY_AUTHS_OVERRIDE_CONFIGS.code(), Reason.HOSTS_TOML_REDIRECTS_PULLS.code(),
            Reason.CONTAINERD_REFUSES_CONFIG.code(), Reason.HOSTS_TOML_CERTIFICATE_MISSING.code());
    /** The Node carries more than one {@code ContainerdConfigFresh} condition: none of them is trusted. */
    public static final String DUPLICATE_CONDITION_REASON = "DuplicateCondition";
    /** A signed fresh verdict that names neither rule that can prove freshness. */
    public static final String FRESH_WITHOUT_PROOF_REASON = "FreshWithoutProof";
    /** A signed fresh verdict without the containerd and config claims it must have been decided on. */
    public static final String FRESH_WITHOUT_EVIDENCE_REASON = "FreshWithoutEvidence";
    /** A signed fresh verdict decided with a margin below {@link AttestationPolicy#marginFloor()}. */
    public static final String MARGIN_BELOW_FLOOR_REASON = "MarginBelowFloor";

    private final AttestationVerifier verifier;
    private final String registry;
    private final String desiredFingerprint;
    private final MarkerRule marker;
    private final AttestationPolicy policy;

    /**
     * @param registry           the registry host; normalised here
     * @param desiredFingerprint {@code CredentialFingerprint.of(fingerprintKey, desired)}
     */
    public NodeClassifier(AttestationVerifier verifier, String registry, String desiredFingerprint, MarkerRule marker) {
        this(verifier, registry, desiredFingerprint, marker, AttestationPolicy.defaults());
    }

    /** @param policy the margin floor a fresh verdict must meet (the verifier enforces the validity limit) */
    public NodeClassifier(AttestationVerifier verifier, String registry, String desiredFingerprint, MarkerRule marker,
                          AttestationPolicy policy) {
        this.policy = policy;
        this.verifier = verifier;
        this.registry = RegistryHosts.normalise(registry);
        this.desiredFingerprint = desiredFingerprint;
        this.marker = marker;
    }

    public String registry() {
        return registry;
    }

    public Classification classify(NodeFacts node, Instant now) {
        boolean markerSaysCurrent = marker.saysCurrent(node.annotations());
        AttestationCondition condition = node.attestation();
        if (condition != null && condition.duplicated()) {
            return new Classification(node, NodeVerdict.UNKNOWN, DUPLICATE_CONDITION_REASON,
                    "the node has " + condition.entries() + " " + ConditionContract.CONDITION_TYPE
                            + " conditions; none of them is trusted", markerSaysCurrent, null);
        }
        String token = condition == null ? null : AttestationMessage.token(condition.message()).orElse(null);
        ExpectedNode expected = new ExpectedNode(node.name(), node.uid(), node.bootId(),
                condition == null ? null : condition.status());
        VerificationResult result = verifier.verify(token, expected, now);
        if (result instanceof VerificationResult.Invalid invalid) {
            return new Classification(node, NodeVerdict.UNKNOWN, FailureReasons.of(invalid.failure()),
                    "attestation rejected: " + invalid.detail(), markerSaysCurrent, null);
        }
        AttestationClaims claims = ((VerificationResult.Valid) result).claims();
        String agentReason = claims.reason() == null || claims.reason().isBlank() ? "Unspecified" : claims.reason();
        if (claims.verdict() == Verdict.UNKNOWN) {
            return new Classification(node, NodeVerdict.UNKNOWN, agentReason,
                    "the agent cannot tell: " + sentence(condition), markerSaysCurrent, claims);
        }
        if (claims.verdict() == Verdict.FRESH && (claims.proof() == null || !claims.proof().provesFresh())) {
            return new Classification(node, NodeVerdict.UNKNOWN, FRESH_WITHOUT_PROOF_REASON,
                    "the attestation says fresh but names no proof (ordering, socket-ordering, content or runtime-status)",
                    markerSaysCurrent, claims);
        }
        if (claims.verdict() == Verdict.FRESH && (claims.containerd() == null || claims.config() == null)) {
            return new Classification(node, NodeVerdict.UNKNOWN, FRESH_WITHOUT_EVIDENCE_REASON,
                    "the attestation says fresh but carries no " + (claims.containerd() == null ? "containerd" : "config")
                            + " claim to have decided it on", markerSaysCurrent, claims);
        }
        if (claims.verdict() == Verdict.FRESH && claims.marginMs() < policy.marginFloor().toMillis()) {
            return new Classification(node, NodeVerdict.UNKNOWN, MARGIN_BELOW_FLOOR_REASON,
                    "the attestation says fresh with a margin of " + claims.marginMs() + " ms, below the "
                            + policy.marginFloor().toMillis() + " ms floor", markerSaysCurrent, claims);
        }
        if (claims.verdict() == Verdict.STALE && REBOOT_DOES_NOT_FIX.contains(agentReason)) {
            // Whatever the fingerprint says: the config spells the credential where no pull sends it.
            return new Classification(node, NodeVerdict.CONFIG_PENDING, agentReason,
                    "a reboot will not fix this, the config must (" + agentReason + "): " + sentence(condition),
                    markerSaysCurrent, claims);
        }
        String held = fingerprintFor(claims.registries());
        if (held == null || !held.equals(desiredFingerprint)) {
            String why = held == null
                    ? "the config holds no credential for " + registry
                    : "the config holds a different credential for " + registry + " than the desired one";
            return new Classification(node, NodeVerdict.CONFIG_PENDING, CONFIG_PENDING_REASON,
                    why + " (containerd is " + claims.verdict().wire() + ")", markerSaysCurrent, claims);
        }
        if (claims.verdict() == Verdict.FRESH) {
            return new Classification(node, NodeVerdict.FRESH, agentReason,
                    "containerd loaded the current config (proof: " + claims.proof().wire() + ")", markerSaysCurrent, claims);
        }
        return new Classification(node, NodeVerdict.STALE, agentReason,
                "containerd runs an older config: " + sentence(condition), markerSaysCurrent, claims);
    }

    private String fingerprintFor(Map<String, String> registries) {
        String exact = registries.get(registry);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, String> e : registries.entrySet()) {
            if (registry.equals(RegistryHosts.normalise(e.getKey()))) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String sentence(AttestationCondition condition) {
        String s = AttestationMessage.sentence(condition == null ? null : condition.message()).trim();
        return s.isEmpty() ? "no explanation given" : s;
    }
}
