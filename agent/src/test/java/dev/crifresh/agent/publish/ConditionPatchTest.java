package dev.crifresh.agent.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.kube.ApiException;
import dev.crifresh.agent.kube.Fabric8NodeApi;
import dev.crifresh.agent.kube.NodeApi;
import dev.crifresh.agent.testing.MockApi;
import dev.crifresh.common.kube.ConditionContract;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The JSON Patch forms against the mock API server's real patch handling. */
class ConditionPatchTest {
    private static final Instant T1 = Instant.parse("2025-03-01T10:00:00Z");
    private static final Instant T2 = Instant.parse("2025-03-01T10:05:00Z");
    private static Vertx vertx;
    private static MockApi api;
    private static NodeApi nodes;
    private static int counter;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        api = new MockApi(vertx);
        nodes = new Fabric8NodeApi(api.client());
    }

    @AfterAll
    static void stop() {
        api.close();
        vertx.close();
    }

    private static String newNode() {
        String name = "node-" + (++counter);
        api.createNode(name, "boot-" + counter);
        return name;
    }

    private static void write(String name, String status, String message, Instant now) throws ApiException {
        Node current = nodes.get(name);
        nodes.patchStatus(name, ConditionPatch.build(current,
                ConditionPatch.desired(current, status, "Reason" + status, message, now)));
    }

    private static NodeCondition ours(String name) throws ApiException {
        return ConditionPatch.ours(nodes.get(name));
    }

    @Test
    void appendsOurConditionAndKeepsKubeletsReady() throws Exception {
        String name = newNode();
        write(name, "True", "m1", T1);
        List<NodeCondition> conditions = api.conditions(name);
        assertEquals(2, conditions.size());
        assertEquals(MockApi.kubeletReady(), conditions.get(0));
        NodeCondition ours = conditions.get(1);
        assertEquals(ConditionContract.CONDITION_TYPE, ours.getType());
        assertEquals("True", ours.getStatus());
        assertEquals("m1", ours.getMessage());
        assertEquals("2025-03-01T10:00:00Z", ours.getLastHeartbeatTime());
        assertEquals("2025-03-01T10:00:00Z", ours.getLastTransitionTime());
    }

    @Test
    void replacesInPlaceKeepingTransitionTimeUntilTheStatusFlips() throws Exception {
        String name = newNode();
        write(name, "True", "m1", T1);
        write(name, "True", "m2", T2);
        NodeCondition same = ours(name);
        assertEquals("m2", same.getMessage());
        assertEquals(T2.toString(), same.getLastHeartbeatTime());
        assertEquals(T1.toString(), same.getLastTransitionTime());
        write(name, "False", "m3", T2.plusSeconds(60));
        NodeCondition flipped = ours(name);
        assertEquals("False", flipped.getStatus());
        assertEquals(T2.plusSeconds(60).toString(), flipped.getLastTransitionTime());
        assertEquals(2, api.conditions(name).size());
        assertEquals(MockApi.kubeletReady(), api.conditions(name).get(0));
    }

    @Test
    void aConcurrentChangeToTheIndexMakesTheGuardedReplaceFail() throws Exception {
        String name = newNode();
        write(name, "True", "m1", T1);
        Node stale = nodes.get(name);
        String patch = ConditionPatch.build(stale, ConditionPatch.desired(stale, "False", "R", "m2", T2));
        // Someone inserts a condition in front of ours: index 1 is now kubelet's Ready.
        Node now = api.client().nodes().withName(name).get();
        now.getStatus().getConditions().add(0, other("MemoryPressure"));
        api.client().nodes().resource(now).updateStatus();
        ApiException e = assertThrows(ApiException.class, () -> nodes.patchStatus(name, patch));
        assertTrue(e.rejected(), "code " + e.code());
        assertEquals("m1", ours(name).getMessage());
        assertEquals(3, api.conditions(name).size());
    }

    @Test
    void aConcurrentChangeMakesTheGuardedAppendFail() throws Exception {
        String name = newNode();
        Node stale = nodes.get(name);
        String patch = ConditionPatch.build(stale, ConditionPatch.desired(stale, "True", "R", "m1", T1));
        Node now = api.client().nodes().withName(name).get();
        now.getStatus().getConditions().add(other("DiskPressure"));
        api.client().nodes().resource(now).updateStatus();
        ApiException e = assertThrows(ApiException.class, () -> nodes.patchStatus(name, patch));
        assertTrue(e.rejected(), "code " + e.code());
        assertEquals(2, api.conditions(name).size());
        write(name, "True", "m1", T1); // re-read and retry succeeds
        assertEquals(3, api.conditions(name).size());
    }

    @Test
    void writesTheWholeListWhenTheNodeHasNoConditions() throws Exception {
        String name = newNode();
        Node n = api.client().nodes().withName(name).get();
        n.getStatus().setConditions(List.of());
        api.client().nodes().resource(n).updateStatus();
        write(name, "Unknown", "m1", T1);
        assertEquals(1, api.conditions(name).size());
        assertEquals("Unknown", ours(name).getStatus());
    }

    @Test
    void removesExtraEntriesOfOurType() throws Exception {
        String name = newNode();
        write(name, "True", "m1", T1);
        Node n = api.client().nodes().withName(name).get();
        NodeCondition copy = new NodeConditionBuilder(ConditionPatch.ours(n)).withMessage("duplicate").build();
        n.getStatus().getConditions().add(copy);
        api.client().nodes().resource(n).updateStatus();
        assertEquals(3, api.conditions(name).size());
        write(name, "True", "m2", T2);
        List<NodeCondition> after = api.conditions(name);
        assertEquals(2, after.size());
        assertEquals("m2", after.get(1).getMessage());
        assertNotEquals("duplicate", after.get(1).getMessage());
    }

    @Test
    void writesAConditionOfAnyTypeInPlaceLeavingTheOthersAlone() throws Exception {
        String name = newNode();
        write(name, "True", "m1", T1);
        NodeCondition notReady = new NodeConditionBuilder(MockApi.kubeletReady()).withStatus("False")
                .withReason("KubeletNotReady").build();
        nodes.patchStatus(name, ConditionPatch.ops(nodes.get(name), notReady).toString());
        List<NodeCondition> after = api.conditions(name);
        assertEquals(2, after.size());
        assertEquals(notReady, after.get(0));
        assertEquals("m1", after.get(1).getMessage());
    }

    @Test
    void aConcurrentChangeMakesTheGuardedAddOfAnotherTypeFail() throws Exception {
        String name = newNode();
        Node stale = nodes.get(name);
        String patch = ConditionPatch.ops(stale, other("NetworkUnavailable")).toString();
        Node now = api.client().nodes().withName(name).get();
        now.getStatus().getConditions().add(other("DiskPressure"));
        api.client().nodes().resource(now).updateStatus();
        ApiException e = assertThrows(ApiException.class, () -> nodes.patchStatus(name, patch));
        assertTrue(e.rejected(), "code " + e.code());
        assertEquals(2, api.conditions(name).size());
        assertNull(ConditionPatch.find(nodes.get(name), "NetworkUnavailable"));
    }

    @Test
    void writesTheEntryOfAnotherTypeAsTheClientSerialisesIt() throws Exception {
        NodeCondition unset = new NodeConditionBuilder().withType("PIDPressure").withStatus("False").build();
        List<JsonNode> entries = ConditionPatch.ops(nodes.get(newNode()), unset).valueStream()
                .map(op -> op.path("value")).filter(JsonNode::isObject).toList();
        assertEquals(1, entries.size(), entries.toString());
        assertEquals(new KubernetesSerialization().asJson(unset), entries.get(0).toString());
        assertEquals("{\"status\":\"False\",\"type\":\"PIDPressure\"}", entries.get(0).toString());
    }

    private static NodeCondition other(String type) {
        return new NodeConditionBuilder().withType(type).withStatus("False").withReason("KubeletHas" + type)
                .withMessage(type).withLastHeartbeatTime(T1.toString()).withLastTransitionTime(T1.toString()).build();
    }

    @Test
    void aStatusPatchIsOneRequestAndADeletedNodeStillAnswers404() throws Exception {
        String name = newNode();
        Node current = nodes.get(name);
        String patch = ConditionPatch.build(current, ConditionPatch.desired(current, "True", "Fresh", "m", T1));
        int before = api.requests().size();

        nodes.patchStatus(name, patch);

        List<String> sent = api.requests().subList(before, api.requests().size()).stream()
                .map(r -> r.method() + " " + r.path()).toList();
        assertEquals(List.of("PATCH /api/v1/nodes/" + name + "/status"), sent, "no GET before the patch");
        ApiException gone = assertThrows(ApiException.class, () -> nodes.patchStatus("no-such-node", patch));
        assertEquals(404, gone.code());
    }
}
