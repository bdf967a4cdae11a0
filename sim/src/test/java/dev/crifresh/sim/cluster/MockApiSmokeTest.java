package dev.crifresh.sim.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;

class MockApiSmokeTest {
    @Test
    void crudAndJsonPatchOnStatus() throws Exception {
        Vertx vertx = Vertx.vertx();
        try (MockApi api = MockApi.start(vertx)) {
            api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").withUid("u-1").endMetadata()
                    .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition()
                    .withNewNodeInfo().withBootID("b1").endNodeInfo().endStatus().build()).create();
            api.client().nodes().withName("n1").subresource("status").patch(PatchContext.of(PatchType.JSON),
                    "[{\"op\":\"test\",\"path\":\"/status/conditions/0/type\",\"value\":\"Ready\"},"
                            + "{\"op\":\"replace\",\"path\":\"/status/conditions/0/status\",\"value\":\"False\"}]");
            Node n = api.client().nodes().withName("n1").get();
            assertEquals("False", n.getStatus().getConditions().get(0).getStatus());
            // like a real API server, the mock assigns the UID itself
            org.junit.jupiter.api.Assertions.assertNotEquals("u-1", n.getMetadata().getUid());
        } finally {
            vertx.close().await();
        }
    }
}
