package dev.crifresh.coordinator.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.gate.pull.Fabric8ProbePods;
import dev.crifresh.coordinator.gate.pull.PullProof;
import dev.crifresh.coordinator.time.Ticker;
import dev.crifresh.mockapi.CrudApiServer;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pull proof against fabric8's mock API server: real HTTP and watches; the test plays the kubelet. */
class PullProofTest {
    private static final String NS = "crifresh";
    private static final String IMAGE = "ghcr.io/example/pull-probe:1";
    private Vertx vertx;
    private KubernetesMockServer server;
    private KubernetesClient client;
    private Context context;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        server = CrudApiServer.crud();
        client = server.createClient(new Vertx5HttpClientFactory(vertx));
        context = vertx.getOrCreateContext();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
        vertx.close().await();
    }

    private PullProof proof(Duration timeout) {
        return new PullProof(Ticker.of(vertx), new Fabric8ProbePods(context, client, NS), IMAGE, timeout, "run-1234abcd");
    }

    private <T> T onContext(Supplier<Future<T>> work) throws Exception {
        Promise<T> p = Promise.promise();
        context.runOnContext(v -> work.get().onComplete(p));
        return p.future().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private Pod awaitProbe() {
        return Poll.until(Duration.ofSeconds(30), "a probe pod", () -> client.pods().inNamespace(NS).list().getItems(),
                l -> !l.isEmpty()).get(0);
    }

    private void kubelet(Pod pod, ContainerStateBuilder state, String imageId) {
        pod.setStatus(new PodStatusBuilder().withPhase("Pending").addToContainerStatuses(
                new ContainerStatusBuilder().withName("pull-proof").withImage(IMAGE).withImageID(imageId)
                        .withState(state.build()).build()).build());
        client.pods().inNamespace(NS).resource(pod).updateStatus();
    }

    @Test
    void theProbeIsPinnedUntaintedWithoutPullSecretsAndDeletedAfterAPull() throws Exception {
        PullProof proof = proof(Duration.ofSeconds(20));
        Promise<GateVerdict> p = Promise.promise();
        context.runOnContext(x -> proof.prove("worker-1", "uid-1").onComplete(p));
        var verdict = p.future();
        Pod probe = awaitProbe();
        assertEquals("worker-1", probe.getSpec().getNodeName());
        assertEquals("Always", probe.getSpec().getContainers().get(0).getImagePullPolicy());
        assertEquals(IMAGE, probe.getSpec().getContainers().get(0).getImage());
        assertTrue(probe.getSpec().getImagePullSecrets() == null || probe.getSpec().getImagePullSecrets().isEmpty());
        assertEquals("Exists", probe.getSpec().getTolerations().get(0).getOperator());
        assertNull(probe.getSpec().getTolerations().get(0).getKey(), "tolerates every taint");
        assertEquals("Never", probe.getSpec().getRestartPolicy());
        assertEquals(PullProof.PROBE_LABELS, probe.getMetadata().getLabels());
        assertEquals("worker-1", probe.getMetadata().getAnnotations().get(PullProof.NODE_ANNOTATION));
        assertEquals("Node", probe.getMetadata().getOwnerReferences().get(0).getKind());
        kubelet(probe, new ContainerStateBuilder().withNewTerminated().withExitCode(0).withReason("Completed").endTerminated(),
                "ghcr.io/example/pull-probe@sha256:ab");
        GateVerdict v = verdict.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertTrue(v.pass(), v.detail());
        assertTrue(v.detail().startsWith("pull proof passed: the node pulled " + IMAGE), v.detail());
        assertEquals(List.of(), client.pods().inNamespace(NS).list().getItems(), "probe deleted");
    }

    @Test
    void aPullErrorFailsWithTheKubeletsMessageAndTheProbeIsDeleted() throws Exception {
        PullProof proof = proof(Duration.ofSeconds(20));
        Promise<GateVerdict> verdict = Promise.promise();
        context.runOnContext(x -> proof.prove("worker-2", null).onComplete(verdict));
        Pod probe = awaitProbe();
        kubelet(probe, new ContainerStateBuilder().withNewWaiting().withReason("ErrImagePull")
                .withMessage("failed to authorize: 401 Unauthorized").endWaiting(), null);
        GateVerdict v = verdict.future().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertFalse(v.pass());
        assertEquals("pull proof failed: ErrImagePull: failed to authorize: 401 Unauthorized", v.detail());
        assertEquals(List.of(), client.pods().inNamespace(NS).list().getItems());
    }

    @Test
    void noPullWithinTheTimeoutFailsAndTheProbeIsDeleted() throws Exception {
        GateVerdict v = onContext(() -> proof(Duration.ofMillis(500)).prove("worker-3", null));
        assertFalse(v.pass());
        assertEquals("pull proof: " + IMAGE + " was not pulled within 500ms", v.detail());
        assertEquals(List.of(), client.pods().inNamespace(NS).list().getItems());
    }

    @Test
    void aRerunDeletesProbePodsAnInterruptedRunLeftBehind() throws Exception {
        PullProof earlier = proof(Duration.ofMinutes(1));
        Promise<GateVerdict> abandoned = Promise.promise();
        context.runOnContext(x -> earlier.prove("worker-4", null).onComplete(abandoned));
        awaitProbe();
        client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("someone-elses").endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("x").endContainer().endSpec().build()).create();
        int deleted = onContext(() -> proof(Duration.ofMinutes(1)).deleteLeftovers());
        assertEquals(1, deleted);
        assertEquals(List.of("someone-elses"), client.pods().inNamespace(NS).list().getItems().stream()
                .map(p -> p.getMetadata().getName()).toList(), "only probe pods are deleted");
        // The earlier proof, still running here (a real interrupted run is gone), sees its pod deleted and ends; awaited
        // so that its last delete is not still running on a worker thread when the test closes Vert.x.
        GateVerdict earlierVerdict = abandoned.future().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals("pull proof: the probe pod was deleted before " + IMAGE + " was pulled", earlierVerdict.detail());
    }
}
