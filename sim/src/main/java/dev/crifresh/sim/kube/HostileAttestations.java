package dev.crifresh.sim.kube;

import dev.crifresh.sim.node.NodeClaims;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.base.SimKeys;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.ExpectedNode;
import dev.crifresh.common.attest.ClaimsJson;
import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.sim.node.StatusPatch;
import dev.crifresh.sim.scenario.AgentMode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Attestations that must not be trusted, written as real Node conditions through the API, each made the
 * way its author would make it and claiming {@code fresh}:
 * <ul>
 * <li>forged: signed by a key the trust bundle does not hold;</li>
 * <li>tampered: a validly signed {@code stale} token whose payload segment was edited to {@code fresh}
 *     without re-signing;</li>
 * <li>wrong-node: another node's valid attestation, copied;</li>
 * <li>wrong-boot: validly signed, but for an earlier boot of this node;</li>
 * <li>expired: validly signed, fresh, but issued 20 minutes ago by an agent that then hung.</li>
 * </ul>
 */
public final class HostileAttestations {
    static final Duration HUNG_FOR = Duration.ofMinutes(20);
    private static final String FRESH_SENTENCE = "containerd started after its config was last written";

    private final KubernetesClient client;
    private final SimKeys keys;
    public HostileAttestations(KubernetesClient client, SimKeys keys) {
        this.client = client;
        this.keys = keys;
    }

    /** Writes the condition for {@code node}'s hostile mode; {@code others} are the other nodes of the cluster. */
    public String write(SimulatedNode node, List<SimulatedNode> others) {
        AgentMode mode = node.agentMode();
        Instant now = Instant.now();
        String message;
        Instant heartbeat = now;
        switch (mode) {
            case FORGED -> message = signed(new AttestationSigner(SimKeys.signingKey(Ed25519Keys.generate())),
                    NodeClaims.of(node, keys.fingerprintKey(), Reason.CONTAINERD_STARTED_AFTER_CONFIG, now));
            case TAMPERED -> message = AttestationMessage.format(FRESH_SENTENCE, tamperedToFresh(trusted().sign(
                    NodeClaims.of(node, keys.fingerprintKey(), Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START,
                            now))));
            case WRONG_NODE -> message = copiedFromAnother(node, others, now);
            case WRONG_BOOT -> {
                AttestationClaims real = NodeClaims.of(node, keys.fingerprintKey(),
                        Reason.CONTAINERD_STARTED_AFTER_CONFIG, now);
                message = signed(trusted(), real.withBootId(UUID.randomUUID().toString()));
            }
            case EXPIRED -> {
                heartbeat = now.minus(HUNG_FOR);
                message = signed(trusted(), NodeClaims.of(node, keys.fingerprintKey(),
                        Reason.CONTAINERD_STARTED_AFTER_CONFIG, heartbeat));
            }
            default -> throw new IllegalArgumentException(mode.wire() + " is not a hostile attestation");
        }
        NodeCondition condition = new NodeConditionBuilder()
                .withType(ConditionContract.CONDITION_TYPE)
                .withStatus(Verdict.FRESH.conditionStatus())
                .withReason(Reason.CONTAINERD_STARTED_AFTER_CONFIG.code())
                .withMessage(message)
                .withLastHeartbeatTime(heartbeat.toString())
                .withLastTransitionTime(heartbeat.toString())
                .build();
        StatusPatch.putCondition(client, node.name(), ConditionContract.CONDITION_TYPE, current -> condition, null);
        return message;
    }

    private AttestationSigner trusted() {
        return new AttestationSigner(keys.agentKey());
    }

    private static String signed(AttestationSigner signer, AttestationClaims claims) {
        return AttestationMessage.format(FRESH_SENTENCE, signer.sign(claims));
    }

    /** What an attacker does with a stale token: decode the payload, say fresh, encode it again, keep the signature. */
    static String tamperedToFresh(String token) {
        String[] parts = token.split("\\.", -1);
        String json = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
        AttestationClaims c = ClaimsJson.read(json);
        AttestationClaims edited = c.withVerdict(Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG.code(),
                Proof.ORDERING);
        String payload = Base64.getUrlEncoder().withoutPadding()
                .encodeToString(ClaimsJson.write(edited).getBytes(StandardCharsets.UTF_8));
        return parts[0] + "." + payload + "." + parts[2];
    }

    /**
     * Copies a valid fresh condition message a real agent published for another node; when no other node
     * has one, signs what that node's agent would have said (or, in a one-node cluster, a node that is not
     * this one).
     */
    private String copiedFromAnother(SimulatedNode node, List<SimulatedNode> others, Instant now) {
        for (SimulatedNode other : others) {
            Optional<String> published = publishedValidFresh(other, now);
            if (published.isPresent()) {
                return published.get();
            }
        }
        if (!others.isEmpty()) {
            SimulatedNode other = others.get(0);
            return signed(trusted(), NodeClaims.of(other, keys.fingerprintKey(),
                    Reason.CONTAINERD_STARTED_AFTER_CONFIG, now));
        }
        AttestationClaims real = NodeClaims.of(node, keys.fingerprintKey(),
                Reason.CONTAINERD_STARTED_AFTER_CONFIG, now);
        return signed(trusted(), real.withSubject(node.name() + "-elsewhere", UUID.randomUUID().toString())
                .withBootId(UUID.randomUUID().toString()));
    }

    private Optional<String> publishedValidFresh(SimulatedNode other, Instant now) {
        Node node = client.nodes().withName(other.name()).get();
        if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        AttestationVerifier verifier = new AttestationVerifier(keys.trust(), AttestationVerifier.DEFAULT_SKEW);
        ExpectedNode expected = new ExpectedNode(other.name(), other.uid(), other.boot().bootId(),
                Verdict.FRESH.conditionStatus());
        return node.getStatus().getConditions().stream()
                .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType()))
                .filter(c -> Verdict.FRESH.conditionStatus().equals(c.getStatus()))
                .map(NodeCondition::getMessage)
                .filter(m -> AttestationMessage.token(m)
                        .map(token -> verifier.verify(token, expected, now).isValid()).orElse(false))
                .findFirst();
    }
}
