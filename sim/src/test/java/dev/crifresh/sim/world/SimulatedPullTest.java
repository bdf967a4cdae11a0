package dev.crifresh.sim.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.external.SimulatedRegistry;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.scenario.Credential;
import dev.crifresh.sim.scenario.ScenarioReader;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The simulated kubelet pulls with what the node's running containerd loaded, not with the file on disk. */
class SimulatedPullTest {
    private static final String PRIVATE_IMAGE = "ghcr.io/example/pull-probe:1";
    @RegisterExtension
    final SimulatedWorlds worlds = new SimulatedWorlds();
    private SimulatedWorld cluster;

    @Test
    void theRegistryRefusesOnlyRevokedCredentialsAndOnlyForItsOwnImages() {
        SimulatedRegistry registry = new SimulatedRegistry("https://GHCR.io/", java.util.List.of(new Credential("bot", "v1")));
        assertFalse(registry.pull(PRIVATE_IMAGE, Optional.of(new Credential("bot", "v1"))).pulled());
        assertFalse(registry.pull(PRIVATE_IMAGE, Optional.empty()).pulled());
        assertTrue(registry.pull(PRIVATE_IMAGE, Optional.of(new Credential("bot", "v2"))).pulled());
        assertTrue(registry.pull("docker.io/library/busybox:1.36", Optional.of(new Credential("bot", "v1"))).pulled());
        assertTrue(registry.pull("busybox", Optional.empty()).pulled(), "no host = docker.io, public");
        SimulatedRegistry.Pull refused = registry.pull(PRIVATE_IMAGE, Optional.of(new Credential("bot", "v1")));
        assertEquals("ErrImagePull", refused.reason());
        assertTrue(refused.message().contains("401 Unauthorized"), refused.message());
        assertFalse(refused.message().contains("v1"), "never shows the password: " + refused.message());
    }

    @Test
    void aPodPullsWithTheCredentialTheRunningContainerdLoadedNotTheFile() throws Exception {
        cluster = worlds.track(SimulatedWorld.create(ScenarioReader.parse("""
                desiredCredential: {username: bot, password: v2}
                revokedCredentials: [{username: bot, password: v1}]
                simulation: {rebootMillis: 100}
                nodes:
                  - {name: current}
                  - {name: holds-revoked, containerdCredential: {username: bot, password: v1}}
                  - {name: file-revoked-containerd-current, credential: {username: bot, password: v1},
                     containerdCredential: {username: bot, password: v2}}
                  - {name: sticky, containerdCredential: {username: bot, password: v1}, containerdCredentialSticks: true}
                """), worlds.vertx(), (client, keys) -> new RecordingLauncher()));

        assertEquals("Succeeded", finalPhase(probe("current")));
        Pod refused = awaitWaiting(probe("holds-revoked"), "ErrImagePull");
        assertEquals("Pending", refused.getStatus().getPhase());
        assertTrue(waiting(refused).getMessage().contains("401 Unauthorized"));
        assertEquals(new Credential("bot", "v2"), cluster.node("holds-revoked").credential(), "the file is current");
        awaitWaiting("holds-revoked", "ImagePullBackOff");
        assertEquals("Succeeded", finalPhase(probe("file-revoked-containerd-current")));

        // A reboot makes containerd load the file again ...
        cluster.requestReboot("holds-revoked");
        Poll.until(Duration.ofSeconds(10), "holds-revoked up again",
                () -> cluster.node("holds-revoked").state() == SimulatedNode.State.UP && cluster.node("holds-revoked").boots() == 2);
        assertEquals(Optional.of(new Credential("bot", "v2")), cluster.node("holds-revoked").loadedCredential());
        cluster.client().pods().inNamespace("default").withName("probe-holds-revoked").delete();
        Poll.until(Duration.ofSeconds(5), "old probe gone",
                () -> cluster.client().pods().inNamespace("default").withName("probe-holds-revoked").get() == null);
        assertEquals("Succeeded", finalPhase(probe("holds-revoked")));
        // ... unless the node's containerd keeps loading the revoked one (a fault the agent cannot see).
        cluster.requestReboot("sticky");
        Poll.until(Duration.ofSeconds(10), "sticky up again", () -> cluster.node("sticky").state() == SimulatedNode.State.UP
                && cluster.node("sticky").boots() == 2);
        awaitWaiting(probe("sticky"), "ErrImagePull");
        assertTrue(cluster.events().stream().anyMatch(e -> e.kind() == SimEvent.Kind.IMAGE_PULL_FAILED
                && "sticky".equals(e.node())));
    }

    @Test
    void aPodOnANodeThatIsDownStartsWhenTheNodeIsBack() throws Exception {
        cluster = worlds.track(SimulatedWorld.create(ScenarioReader.parse("""
                simulation: {rebootMillis: 300}
                nodes: [{name: w-1}]
                """), worlds.vertx(), (client, keys) -> new RecordingLauncher()));
        cluster.requestReboot("w-1");
        Poll.until(Duration.ofSeconds(5), "w-1 down", () -> cluster.node("w-1").state() != SimulatedNode.State.UP);
        probe("w-1");
        assertEquals("Succeeded", finalPhase("w-1"));
        assertEquals(2, cluster.node("w-1").boots());
    }

    private String probe(String node) {
        cluster.client().pods().inNamespace("default").resource(new PodBuilder()
                .withNewMetadata().withName("probe-" + node).withNamespace("default").endMetadata()
                .withNewSpec().withNodeName(node).withRestartPolicy("Never")
                .addNewContainer().withName("probe").withImage(PRIVATE_IMAGE).withImagePullPolicy("Always")
                .withCommand("true").endContainer().endSpec().build()).create();
        return node;
    }

    private String finalPhase(String node) {
        return Poll.until(Duration.ofSeconds(10), "probe on " + node + " finished", () -> pod(node),
                p -> p != null && p.getStatus() != null && ("Succeeded".equals(p.getStatus().getPhase())
                        || waiting(p) != null)).getStatus().getPhase();
    }

    private Pod awaitWaiting(String node, String reason) {
        return Poll.until(Duration.ofSeconds(10), "probe on " + node + " in " + reason, () -> pod(node),
                p -> p != null && waiting(p) != null && reason.equals(waiting(p).getReason()));
    }

    private Pod pod(String node) {
        return cluster.client().pods().inNamespace("default").withName("probe-" + node).get();
    }

    private static io.fabric8.kubernetes.api.model.ContainerStateWaiting waiting(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
            if (s.getState() != null && s.getState().getWaiting() != null) {
                return s.getState().getWaiting();
            }
        }
        return null;
    }
}
