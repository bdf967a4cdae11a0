package dev.crifresh.sim.run;

import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.agent.loop.Evaluator;
import dev.crifresh.agent.publish.ClaimsFactory;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.sim.node.StatusPatch;
import dev.crifresh.sim.node.AgentLauncher;
import dev.crifresh.sim.node.HostRoot;
import dev.crifresh.sim.node.SimulatedHostClock;
import dev.crifresh.sim.base.SimKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A light stand-in for the agent, for scale runs where a node only has to attest its boot: at each start it
 * reads the node's host root once with the agent's own {@link Evaluator} (real {@code /proc}, boot id, file
 * mtimes and contents, the evidence rules), signs the claims with the agent's {@link ClaimsFactory} and the
 * real {@link AttestationSigner}, and writes the condition with one guarded status patch through the
 * simulation's shared client. No loop, no file watch, no Node watch, no heartbeat, no HTTP client of its own:
 * a node's later changes (a config write, a containerd restart) are not seen, so scenarios that change a
 * running node keep {@link RealAgentLauncher}.
 *
 * <p>The token is what the real agent would sign for the same evidence: the coordinator verifies it with the
 * real verifier against the simulation's trust bundle, so a mistake here shows as a node that never turns
 * fresh, never as a shortcut to fresh.
 */
public final class OneShotAgentLauncher implements AgentLauncher {
    private final KubernetesClient client;
    private final SimKeys keys;
    private final AttestationSigner signer;
    /** A Node's UID does not change across its reboots; read once. */
    private final Map<String, String> uids = new ConcurrentHashMap<>();

    public OneShotAgentLauncher(KubernetesClient client, SimKeys keys) {
        this.client = client;
        this.keys = keys;
        this.signer = new AttestationSigner(keys.agentKey());
    }

    @Override
    public RunningAgent start(String nodeName, HostRoot host, SimulatedHostClock clock) {
        AgentSettings settings = RealAgentLauncher.settings(nodeName, host, RealAgentLauncher.PROC_POLL);
        HostReader reader = new HostReader(settings.procRoot(), settings.hostRoot(), settings.watchGlobs(),
                settings.matcher(), clock, settings.mounts());
        Assessment assessment = new Evaluator(reader, settings.rules(), keys.fingerprintKey(),
                settings.containerdGeneration()).evaluate();
        Evaluation e = assessment.evaluation();
        if (assessment.observation().bootId() == null) {
            throw new IllegalStateException("node " + nodeName + ": the boot id is unreadable, nothing to attest");
        }
        AttestationClaims claims = ClaimsFactory.claims(assessment, nodeName, uid(nodeName), clock.wallNow(),
                settings.validity(), settings.rules().margin(), settings.agentVersion());
        String message = AttestationMessage.format(e.message(), signer.sign(claims));
        String status = e.verdict().conditionStatus();
        StatusPatch.putCondition(client, nodeName, ConditionContract.CONDITION_TYPE, current -> {
            String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
            String transition = current != null && status.equals(current.getStatus())
                    && current.getLastTransitionTime() != null ? current.getLastTransitionTime() : now;
            return new NodeConditionBuilder().withType(ConditionContract.CONDITION_TYPE).withStatus(status)
                    .withReason(e.reason().code()).withMessage(message).withLastHeartbeatTime(now)
                    .withLastTransitionTime(transition).build();
        }, null);
        // Nothing runs between starts; the condition stays as written, as a stopped agent's does.
        return () -> { };
    }

    private String uid(String nodeName) {
        return uids.computeIfAbsent(nodeName, name -> {
            Node node = client.nodes().withName(name).get();
            if (node == null) {
                throw new IllegalStateException("node " + name + " does not exist");
            }
            return node.getMetadata().getUid();
        });
    }
}
