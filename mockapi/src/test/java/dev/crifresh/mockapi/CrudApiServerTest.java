package dev.crifresh.mockapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The CRUD server the factory starts, over real HTTP. */
class CrudApiServerTest {
    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server = CrudApiServer.crud();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    @Test
    void storesObjectsOnLoopback() throws Exception {
        assertTrue(InetAddress.getByName(server.getHostName()).isLoopbackAddress(), server.getHostName());
        client.nodes().resource(node("n-1")).create();
        assertEquals("n-1", client.nodes().withName("n-1").get().getMetadata().getName());
    }

    @Test
    void aJsonPatchWhoseTestFailsIsRejectedWith422AndChangesNothing() {
        client.nodes().resource(node("n-2")).create();
        String failing = "[{\"op\":\"test\",\"path\":\"/metadata/labels/role\",\"value\":\"other\"},"
                + "{\"op\":\"replace\",\"path\":\"/metadata/labels/role\",\"value\":\"changed\"}]";
        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> client.nodes().withName("n-2").patch(PatchContext.of(PatchType.JSON), failing));
        assertEquals(422, e.getCode());
        assertEquals("worker", client.nodes().withName("n-2").get().getMetadata().getLabels().get("role"));

        String passing = "[{\"op\":\"test\",\"path\":\"/metadata/labels/role\",\"value\":\"worker\"},"
                + "{\"op\":\"replace\",\"path\":\"/metadata/labels/role\",\"value\":\"changed\"}]";
        client.nodes().withName("n-2").patch(PatchContext.of(PatchType.JSON), passing);
        assertEquals("changed", client.nodes().withName("n-2").get().getMetadata().getLabels().get("role"));
    }

    @Test
    void expectationsAreAnsweredBeforeTheStore() {
        server.expect().get().withPath("/api/v1/nodes/n-3").andReturn(418, "{}").once();
        client.nodes().resource(node("n-3")).create();
        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> client.nodes().withName("n-3").get());
        assertEquals(418, e.getCode());
        assertTrue(client.nodes().withName("n-3").get() != null, "then the store answers");
    }

    private static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).addToLabels("role", "worker").endMetadata().build();
    }
}
