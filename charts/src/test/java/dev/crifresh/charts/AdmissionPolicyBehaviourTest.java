package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The rendered admission policy, evaluated against the Node status updates an agent could send. */
class AdmissionPolicyBehaviourTest {

    static final String AGENT = "system:serviceaccount:crifresh:crifresh-agent";
    static final String OWN_NODE = "the crifresh agent may update the status of its own Node only, and on another Node"
            + " only mark its ContainerdConfigFresh condition Unknown with reason AttestationExpired";
    static final String NO_CLAIM = "the crifresh agent's token carries no authentication.kubernetes.io/node-name claim"
            + " (needs a pod-bound service account token on Kubernetes >= 1.30)";
    static final String ONLY_OURS = "the crifresh agent may change the ContainerdConfigFresh condition only";
    static final String NO_MOVES = "the crifresh agent may not change the Node's addresses or nodeInfo";

    private static AdmissionPolicyEvaluator policy;

    @BeforeAll
    static void render() {
        policy = new AdmissionPolicyEvaluator(Chart.render().one("ValidatingAdmissionPolicy"));
    }

    @Test
    void everyExpressionCompiles() {
        assertEquals(List.of(), policy.compileErrors());
    }

    @Test
    void appliesToTheAgentsServiceAccountOnly() {
        assertTrue(policy.matches(request(AGENT, "worker-1")));
        assertFalse(policy.matches(request("system:node:worker-1", "worker-1")), "the kubelet is not restricted");
        assertFalse(policy.matches(request("system:serviceaccount:other:crifresh-agent", "worker-1")));
        assertFalse(policy.matches(request("system:serviceaccount:crifresh:crifresh-coordinator", null)));
    }

    @Test
    void theAgentMayPublishItsConditionOnItsOwnNode() {
        Map<String, Object> before = node("worker-1", ready("True"), ours("False"));
        Map<String, Object> after = node("worker-1", ready("True"), ours("True"));
        assertEquals(List.of(), policy.denials(request(AGENT, "worker-1"), before, after));
        Map<String, Object> first = node("worker-1", ready("True"));
        assertEquals(List.of(), policy.denials(request(AGENT, "worker-1"), first, node("worker-1", ready("True"), ours("True"))),
                "the first publish adds the condition");
        Map<String, Object> bare = new LinkedHashMap<>(Map.of("metadata", Map.of("name", "worker-1"), "status", Map.of()));
        assertEquals(List.of(), policy.denials(request(AGENT, "worker-1"), bare, node("worker-1", ours("Unknown"))),
                "a Node without any condition yet");
    }

    @Test
    void anotherNodesStatusIsRefused() {
        Map<String, Object> before = node("worker-2", ready("True"), ours("False"));
        Map<String, Object> after = node("worker-2", ready("True"), ours("True"));
        assertEquals(List.of(OWN_NODE), policy.denials(request(AGENT, "worker-1"), before, after));
    }

    @Test
    void onAnotherNodeTheExpiryLeaderMayMarkTheConditionUnknownAttestationExpired() {
        Map<String, Object> before = withStatus(node("worker-2", ready("True"), ours("True")), "10.0.0.2", "boot-a");
        Map<String, Object> after = withStatus(node("worker-2", ready("True"), expired()), "10.0.0.2", "boot-a");
        assertEquals(List.of(), policy.denials(request(AGENT, "worker-1"), before, after));
        Map<String, Object> stale = node("worker-2", ready("True"), ours("False"));
        assertEquals(List.of(), policy.denials(request(AGENT, "worker-1"), stale, node("worker-2", ready("True"), expired())),
                "False too");
        Map<String, Object> twice = node("worker-2", ready("True"), ours("True"), ours("True"));
        assertEquals(List.of(), policy.denials(request(AGENT, "worker-1"), twice, node("worker-2", ready("True"), expired())),
                "a duplicate entry removed with it");
    }

    @Test
    void onAnotherNodeNothingButThatDowngradeIsAllowed() {
        Map<String, Object> before = node("worker-2", ready("True"), ours("Unknown"));
        Map<String, Object> unknownOtherReason = node("worker-2", ready("True"), ours("Unknown"));
        assertEquals(List.of(OWN_NODE), policy.denials(request(AGENT, "worker-1"), node("worker-2", ready("True"), ours("True")),
                unknownOtherReason), "Unknown with another reason");
        assertEquals(List.of(OWN_NODE), policy.denials(request(AGENT, "worker-1"), before,
                node("worker-2", ready("True"), ours("True"))), "an upgrade to True");
        assertEquals(List.of(OWN_NODE), policy.denials(request(AGENT, "worker-1"), before,
                node("worker-2", ready("True"), condition("ContainerdConfigFresh", "True", "AttestationExpired"))),
                "True with the expiry's reason");
        assertEquals(List.of(OWN_NODE), policy.denials(request(AGENT, "worker-1"), node("worker-2", ready("True")),
                node("worker-2", ready("True"), expired())), "a condition where the node's own agent wrote none");
        assertEquals(List.of(OWN_NODE), policy.denials(request(AGENT, "worker-1"), before,
                node("worker-2", ready("True"), expired(), expired())), "two entries");
        assertEquals(List.of(OWN_NODE), policy.denials(request(AGENT, "worker-1"), before, node("worker-2", ready("True"))),
                "removing the condition");
        assertEquals(List.of(ONLY_OURS), policy.denials(request(AGENT, "worker-1"), before,
                node("worker-2", ready("False"), expired())), "another condition changed beside the downgrade");
        assertEquals(List.of(NO_MOVES), policy.denials(request(AGENT, "worker-1"),
                withStatus(node("worker-2", ready("True"), ours("True")), "10.0.0.2", "boot-a"),
                withStatus(node("worker-2", ready("True"), expired()), "10.0.0.2", "boot-b")), "a moved boot id");
    }

    static Map<String, Object> expired() {
        return condition("ContainerdConfigFresh", "Unknown", "AttestationExpired");
    }

    @Test
    void aTokenWithoutTheNodeClaimIsRefused() {
        Map<String, Object> before = node("worker-1", ready("True"), ours("False"));
        Map<String, Object> after = node("worker-1", ready("True"), ours("True"));
        assertEquals(List.of(NO_CLAIM, OWN_NODE), policy.denials(request(AGENT, null), before, after));
        Map<String, Object> noExtraAtAll = new LinkedHashMap<>(Map.of("userInfo", Map.of("username", AGENT)));
        assertEquals(List.of(NO_CLAIM, OWN_NODE), policy.denials(noExtraAtAll, before, after));
    }

    @Test
    void anyOtherConditionMustStayAsItWas() {
        Map<String, Object> before = node("worker-1", ready("True"), ours("False"));
        assertEquals(List.of(ONLY_OURS), policy.denials(request(AGENT, "worker-1"), before,
                node("worker-1", ready("False"), ours("True"))), "flipping Ready");
        assertEquals(List.of(ONLY_OURS), policy.denials(request(AGENT, "worker-1"), before,
                node("worker-1", ours("True"))), "removing Ready");
        assertEquals(List.of(ONLY_OURS), policy.denials(request(AGENT, "worker-1"), before,
                node("worker-1", ready("True"), ours("True"), condition("DiskPressure", "True"))), "adding another condition");
    }

    @Test
    void theBootIdAndAddressesTheCoordinatorTrustsCannotBeMoved() {
        Map<String, Object> before = withStatus(node("worker-1", ready("True"), ours("False")), "10.0.0.1", "boot-a");
        assertEquals(List.of(), policy.denials(request(AGENT, "worker-1"), before,
                withStatus(node("worker-1", ready("True"), ours("True")), "10.0.0.1", "boot-a")));
        assertEquals(List.of(NO_MOVES), policy.denials(request(AGENT, "worker-1"), before,
                withStatus(node("worker-1", ready("True"), ours("True")), "10.0.0.1", "boot-b")), "a forged boot id");
        assertEquals(List.of(NO_MOVES), policy.denials(request(AGENT, "worker-1"), before,
                withStatus(node("worker-1", ready("True"), ours("True")), "10.0.0.2", "boot-a")), "a moved InternalIP");
        Map<String, Object> dropped = node("worker-1", ready("True"), ours("True"));
        assertEquals(List.of(NO_MOVES), policy.denials(request(AGENT, "worker-1"), before, dropped), "removed addresses");
    }

    static Map<String, Object> withStatus(Map<String, Object> node, String internalIp, String bootId) {
        @SuppressWarnings("unchecked")
        Map<String, Object> status = new LinkedHashMap<>((Map<String, Object>) node.get("status"));
        status.put("addresses", List.of(Map.of("type", "InternalIP", "address", internalIp)));
        status.put("nodeInfo", Map.of("bootID", bootId, "kubeletVersion", "v1.33.0"));
        return Map.of("metadata", node.get("metadata"), "status", status);
    }

    static Map<String, Object> request(String username, String nodeClaim) {
        Map<String, Object> userInfo = new LinkedHashMap<>();
        userInfo.put("username", username);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("authentication.kubernetes.io/pod-name", List.of("crifresh-agent-x7k2p"));
        if (nodeClaim != null) {
            extra.put("authentication.kubernetes.io/node-name", List.of(nodeClaim));
        }
        userInfo.put("extra", extra);
        return Map.of("userInfo", userInfo, "operation", "UPDATE");
    }

    @SafeVarargs
    static Map<String, Object> node(String name, Map<String, Object>... conditions) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Map<String, Object> condition : conditions) {
            list.add(condition);
        }
        return Map.of("metadata", Map.of("name", name), "status", Map.of("conditions", list));
    }

    static Map<String, Object> ready(String status) {
        return condition("Ready", status);
    }

    static Map<String, Object> ours(String status) {
        return condition("ContainerdConfigFresh", status);
    }

    static Map<String, Object> condition(String type, String status) {
        return condition(type, status, type + status);
    }

    static Map<String, Object> condition(String type, String status, String reason) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", type);
        c.put("status", status);
        c.put("reason", reason);
        c.put("lastHeartbeatTime", "2026-01-01T00:00:00Z");
        return c;
    }
}
