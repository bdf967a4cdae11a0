package dev.crifresh.sim.kube;

import dev.crifresh.sim.external.SimulatedRegistry;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.base.SimEvent;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The simulated kubelet's pod start: every pod created bound to a node ({@code spec.nodeName} set) without
 * a status is started by that node's kubelet, which pulls each container image through the node's
 * <em>running</em> containerd — with the credential containerd loaded at its start, not the one the config
 * file holds now ({@link SimulatedNode#loadedCredential()}), against the {@link SimulatedRegistry}. A pod on a
 * node that is down starts when the node is back. Outcomes, as a kubelet reports them:
 * <ul>
 *   <li>pulled, {@code restartPolicy: Never}: phase {@code Succeeded}, container terminated ({@code Completed}, exit 0);</li>
 *   <li>pulled, otherwise: phase {@code Running}, container running;</li>
 *   <li>refused: phase {@code Pending}, container waiting {@code ErrImagePull} with the pull error, then
 *       {@code ImagePullBackOff} shortly after.</li>
 * </ul>
 * Other simulated parts (a rescheduled pod, a probe pod) get the same pull by creating the pod bound to
 * the node. Runs on the simulation's pod thread.
 */
public final class PodStarter implements AutoCloseable {
    /** How long a pull takes. */
    static final Duration PULL = Duration.ofMillis(100);
    /** How long after ErrImagePull the kubelet reports ImagePullBackOff. */
    static final Duration BACK_OFF = Duration.ofMillis(500);

    private final KubernetesClient client;
    private final ScheduledExecutorService platform;
    private final SimulatedRegistry registry;
    private final Function<String, SimulatedNode> nodes;
    private final Consumer<SimEvent> events;
    /** Pods waiting for their node to come back, by node name. */
    private final Map<String, Set<String>> waiting = new ConcurrentHashMap<>();
    private SharedIndexInformer<Pod> informer;

    public PodStarter(KubernetesClient client, ScheduledExecutorService platform, SimulatedRegistry registry,
            Function<String, SimulatedNode> nodes, Consumer<SimEvent> events) {
        this.client = client;
        this.platform = platform;
        this.registry = registry;
        this.nodes = nodes;
        this.events = events;
    }

    /** Starts watching pods; pods that exist already and have a status are left alone. */
    public void start() {
        informer = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                if (needsStart(pod)) {
                    String key = key(pod);
                    platform.schedule(() -> startPod(key), PULL.toMillis(), TimeUnit.MILLISECONDS);
                }
            }

            @Override
            public void onUpdate(Pod before, Pod after) {
            }

            @Override
            public void onDelete(Pod pod, boolean unknownFinalState) {
            }
        });
    }

    /** The node is up again (its state is UP already): start the pods that waited for it. Called on the pod thread. */
    public void nodeUp(String nodeName) {
        Set<String> keys = waiting.remove(nodeName);
        if (keys != null) {
            keys.forEach(this::startPod);
        }
    }

    public static boolean needsStart(Pod pod) {
        if (pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
            return false;
        }
        PodStatus status = pod.getStatus();
        return status == null || status.getPhase() == null
                || ("Pending".equals(status.getPhase()) && (status.getContainerStatuses() == null
                        || status.getContainerStatuses().isEmpty()));
    }

    private void startPod(String key) {
        try {
            String[] nsName = key.split("/", 2);
            Pod pod = client.pods().inNamespace(nsName[0]).withName(nsName[1]).get();
            if (pod == null || !needsStart(pod)) {
                return;
            }
            String nodeName = pod.getSpec().getNodeName();
            SimulatedNode node;
            try {
                node = nodes.apply(nodeName);
            } catch (IllegalArgumentException noSuchNode) {
                return;
            }
            if (node.state() != SimulatedNode.State.UP || node.loadedCredential().isEmpty()) {
                waiting.computeIfAbsent(nodeName, n -> new LinkedHashSet<>()).add(key);
                return;
            }
            List<ContainerStatus> statuses = new ArrayList<>();
            SimulatedRegistry.Pull failed = null;
            boolean never = "Never".equals(pod.getSpec().getRestartPolicy());
            for (var container : pod.getSpec().getContainers()) {
                SimulatedRegistry.Pull pull = registry.pull(container.getImage(), node.loadedCredential());
                statuses.add(containerStatus(container.getName(), container.getImage(), pull, never));
                if (!pull.pulled() && failed == null) {
                    failed = pull;
                }
                events.accept(new SimEvent(Instant.now(), nodeName, pull.pulled() ? SimEvent.Kind.IMAGE_PULLED
                        : SimEvent.Kind.IMAGE_PULL_FAILED, key + ": " + container.getImage()
                        + (pull.pulled() ? "" : " (" + pull.reason() + ", 401 Unauthorized)")));
            }
            String phase = failed != null ? "Pending" : never ? "Succeeded" : "Running";
            writeStatus(pod, new PodStatusBuilder().withPhase(phase).withHostIP(node.internalIp())
                    .withStartTime(Instant.now().toString()).withContainerStatuses(statuses).build());
            if (failed != null) {
                platform.schedule(() -> backOff(key), BACK_OFF.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (RuntimeException e) {
            events.accept(new SimEvent(Instant.now(), null, SimEvent.Kind.PLATFORM_ERROR,
                    "could not start pod " + key + ": " + e.getMessage()));
        }
    }

    private static ContainerStatus containerStatus(String name, String image, SimulatedRegistry.Pull pull,
            boolean runsToCompletion) {
        ContainerStatusBuilder status = new ContainerStatusBuilder().withName(name).withImage(image)
                .withRestartCount(0).withReady(pull.pulled() && !runsToCompletion);
        if (!pull.pulled()) {
            return status.withState(new ContainerStateBuilder().withNewWaiting().withReason(pull.reason())
                    .withMessage(pull.message()).endWaiting().build()).withStarted(false).build();
        }
        status.withImageID(pull.imageId()).withContainerID("containerd://" + Integer.toHexString(image.hashCode()));
        String now = Instant.now().toString();
        return runsToCompletion
                ? status.withState(new ContainerStateBuilder().withNewTerminated().withExitCode(0).withReason("Completed")
                        .withStartedAt(now).withFinishedAt(now).endTerminated().build()).withStarted(false).build()
                : status.withState(new ContainerStateBuilder().withNewRunning().withStartedAt(now).endRunning().build())
                        .withStarted(true).build();
    }

    /** ErrImagePull turns into ImagePullBackOff, as the kubelet's retry back-off begins. */
    private void backOff(String key) {
        String[] nsName = key.split("/", 2);
        Pod pod = client.pods().inNamespace(nsName[0]).withName(nsName[1]).get();
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return;
        }
        boolean changed = false;
        for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
            var waitingState = s.getState() == null ? null : s.getState().getWaiting();
            if (waitingState != null && "ErrImagePull".equals(waitingState.getReason())) {
                waitingState.setReason("ImagePullBackOff");
                waitingState.setMessage("Back-off pulling image \"" + s.getImage() + "\": ErrImagePull: "
                        + waitingState.getMessage());
                changed = true;
            }
        }
        if (changed) {
            writeStatus(pod, pod.getStatus());
        }
    }

    private void writeStatus(Pod pod, PodStatus status) {
        pod.setStatus(status);
        client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
    }

    private static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
