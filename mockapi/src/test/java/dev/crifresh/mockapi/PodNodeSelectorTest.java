package dev.crifresh.mockapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The mock answers the field selector {@code spec.nodeName} on pods as kube-apiserver does: lists and watches. */
class PodNodeSelectorTest {
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
    void aListSelectedByNodeHoldsThatNodesPodsOnly() {
        pod("shop", "a", "n1");
        pod("shop", "b", "n2");
        pod("web", "c", "n1");

        assertEquals(List.of("a", "c"), names(client.pods().inAnyNamespace().withField("spec.nodeName", "n1").list().getItems()));
        assertEquals(List.of("a"), names(client.pods().inNamespace("shop").withField("spec.nodeName", "n1").list().getItems()));
        assertEquals(List.of("b"), names(client.pods().inAnyNamespace().withField("spec.nodeName", "n2").list().getItems()));
        assertEquals(List.of(), names(client.pods().inAnyNamespace().withField("spec.nodeName", "n3").list().getItems()));
        assertEquals(List.of("c"), names(client.pods().inAnyNamespace().withField("spec.nodeName", "n1")
                .withField("metadata.namespace", "web").list().getItems()));
        assertEquals(3, client.pods().inAnyNamespace().list().getItems().size(), "without a selector: every pod");
    }

    @Test
    void aWatchSelectedByNodeSeesThatNodesPodsOnly() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Watch watch = client.pods().inAnyNamespace().withField("spec.nodeName", "n1").watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                seen.add(action + " " + pod.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        });
        try {
            pod("shop", "other", "n2");
            pod("shop", "mine", "n1");
            client.pods().inNamespace("shop").withName("other").delete();
            client.pods().inNamespace("shop").withName("mine").delete();
            Poll.until(Duration.ofSeconds(20), "the deletion of n1's pod", () -> seen.contains("DELETED mine"));
            assertEquals(List.of("ADDED mine", "DELETED mine"), seen);
        } finally {
            watch.close();
        }
    }

    @Test
    void onlyPodCollectionsSelectedByNodeAreRewritten() {
        assertNull(PodNodeSelector.of("/api/v1/pods"));
        assertNull(PodNodeSelector.of("/api/v1/pods?fieldSelector=metadata.name%3Da"));
        assertNull(PodNodeSelector.of("/api/v1/nodes?fieldSelector=spec.nodeName%3Dn1"));
        assertNull(PodNodeSelector.of("/api/v1/namespaces/shop/pods/a?fieldSelector=spec.nodeName%3Dn1"));
        assertEquals(new PodNodeSelector("n1", "/api/v1/pods?watch=true"),
                PodNodeSelector.of("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&watch=true"));
        assertEquals(new PodNodeSelector("n1", "/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Da"),
                PodNodeSelector.of("/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Da%2Cspec.nodeName%3D%3Dn1"));
    }

    private void pod(String namespace, String name, String node) {
        client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).endMetadata().withNewSpec().withNodeName(node).addNewContainer()
                .withName("c").withImage("busybox").endContainer().endSpec().build()).create();
    }

    private static List<String> names(List<Pod> pods) {
        return pods.stream().map(p -> p.getMetadata().getName()).sorted().toList();
    }
}
