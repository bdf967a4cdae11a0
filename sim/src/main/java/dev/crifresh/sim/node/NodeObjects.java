package dev.crifresh.sim.node;

import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.sim.scenario.Marker;
import dev.crifresh.sim.scenario.NodeSpec;
import dev.crifresh.sim.scenario.Role;
import dev.crifresh.sim.scenario.TaintSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The Kubernetes objects of a simulated node, as a Talos kubelet would register them. Pure builders. */
public final class NodeObjects {
    /** The coordinator's own label (its Role clashes with the scenario's), so nodes carry what it classifies by. */
    private static final String CONTROL_PLANE_LABEL = dev.crifresh.coordinator.classify.Role.CONTROL_PLANE_LABEL;
    public static final String WORKER_LABEL = "node-role.kubernetes.io/worker";
    /** Where the evictable application pods live. */
    public static final String APP_NAMESPACE = "apps";
    public static final String SYSTEM_NAMESPACE = "kube-system";
    /** The marker values the simulation writes: the desired revision, and an older one. */
    public static final String MARKER_CURRENT = "current";
    public static final String MARKER_STALE = "stale";

    private NodeObjects() {
    }

    /** The InternalIP of the node at {@code index} in the scenario, unique per node. */
    public static String internalIp(int index) {
        return "10.5." + (index / 250) + "." + (10 + index % 250);
    }

    public static Node node(NodeSpec spec, int index, String bootId, Instant now) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("kubernetes.io/hostname", spec.name());
        labels.put("kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.put(spec.role() == Role.CONTROL_PLANE ? CONTROL_PLANE_LABEL : WORKER_LABEL, "");
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put("talos.dev/owned-labels", "[]");
        if (spec.marker() != Marker.ABSENT) {
            annotations.put(ConditionContract.DEFAULT_MARKER_ANNOTATION,
                    spec.marker() == Marker.CURRENT ? MARKER_CURRENT : MARKER_STALE);
        }
        NodeBuilder node = new NodeBuilder()
                .withNewMetadata().withName(spec.name()).withLabels(labels).withAnnotations(annotations).endMetadata()
                .withNewSpec().withPodCIDR("10.244." + index + ".0/24")
                .withUnschedulable(spec.cordoned() ? Boolean.TRUE : null).endSpec()
                .withNewStatus()
                .addNewAddress().withType("InternalIP").withAddress(internalIp(index)).endAddress()
                .addNewAddress().withType("Hostname").withAddress(spec.name()).endAddress()
                .withConditions(kubeletConditions(spec.ready(), now))
                // what the kubelet reports; kubectl describe node computes its allocation percentages from it
                .withCapacity(resources("4", "8Gi"))
                .withAllocatable(resources("3900m", "7680Mi"))
                .withNewNodeInfo()
                .withBootID(bootId)
                .withMachineID(Long.toHexString(spec.name().hashCode() & 0xffffffffL) + "0c8f4e3d9b2a1f7e6d5c4b3a2918")
                .withSystemUUID("4c4c4544-0000-" + String.format("%04d", index) + "-8000-b7c04f4d3232")
                .withOsImage(spec.reportedOsImage())
                .withKernelVersion("6.12.48-talos")
                .withContainerRuntimeVersion("containerd://2.1.4")
                .withKubeletVersion("v1.34.1")
                .withOperatingSystem("linux")
                .withArchitecture("amd64")
                .endNodeInfo()
                .endStatus();
        if (spec.role() == Role.CONTROL_PLANE) {
            node.editSpec().addNewTaint().withKey(CONTROL_PLANE_LABEL).withEffect("NoSchedule").endTaint().endSpec();
        }
        for (TaintSpec taint : spec.taints()) {
            // the cluster autoscaler's taints carry the Unix time they were set as their value
            node.editSpec().addNewTaint().withKey(taint.key()).withValue(String.valueOf(now.getEpochSecond()))
                    .withEffect(taint.effect()).endTaint().endSpec();
        }
        return node.build();
    }

    /** The kubelet's own conditions; Ready is last, as the kubelet lists it. */
    static List<NodeCondition> kubeletConditions(boolean ready, Instant now) {
        List<NodeCondition> conditions = new ArrayList<>();
        conditions.add(condition("MemoryPressure", "False", "KubeletHasSufficientMemory", now));
        conditions.add(condition("DiskPressure", "False", "KubeletHasNoDiskPressure", now));
        conditions.add(condition("PIDPressure", "False", "KubeletHasSufficientPID", now));
        conditions.add(readyCondition(ready, now));
        return conditions;
    }

    static NodeCondition readyCondition(boolean ready, Instant now) {
        return ready
                ? condition("Ready", "True", "KubeletReady", now)
                : condition("Ready", "False", "KubeletNotReady", now);
    }

    private static NodeCondition condition(String type, String status, String reason, Instant now) {
        String message = switch (reason) {
            case "KubeletReady" -> "kubelet is posting ready status";
            case "KubeletNotReady" -> "node is shutting down or not reachable";
            default -> "kubelet has no " + type.replace("Pressure", "").toLowerCase() + " pressure";
        };
        return new NodeConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withLastHeartbeatTime(now.toString()).withLastTransitionTime(now.toString()).build();
    }

    /**
     * The pods running on a node: {@code evictable} application pods owned by a ReplicaSet, its bare pods (no owner)
     * and emptyDir pods (a ReplicaSet's, with an emptyDir volume), one DaemonSet pod, and on control-plane nodes a
     * static (mirror) pod. Only the pods in {@link #APP_NAMESPACE} may be evicted.
     */
    public static List<Pod> pods(NodeSpec spec, String nodeUid) {
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < spec.pods(); i++) {
            pods.add(appPod(spec, i));
        }
        for (int i = 0; i < spec.barePods(); i++) {
            pods.add(barePod(spec, i));
        }
        for (int i = 0; i < spec.emptyDirPods(); i++) {
            pods.add(scratchPod(spec, i));
        }
        pods.add(daemonSetPod(spec));
        if (spec.role() == Role.CONTROL_PLANE) {
            pods.add(mirrorPod(spec, nodeUid));
        }
        return pods;
    }

    /** An application pod owned by a ReplicaSet. */
    private static Pod appPod(NodeSpec spec, int i) {
        return new PodBuilder()
                .withNewMetadata().withName(appPodName(spec.name(), i)).withNamespace(APP_NAMESPACE)
                .addToLabels("app", "web")
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("web-7d9f8b6c5d")
                .withUid("rs-web-7d9f8b6c5d").withController(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withNodeName(spec.name())
                .addNewContainer().withName("web").withImage("ghcr.io/example/web:1.4.2").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build();
    }

    /** A pod without an owner. */
    private static Pod barePod(NodeSpec spec, int i) {
        // created straight with a nodeName, as `kubectl run` or a hand-written manifest does: no controller
        return new PodBuilder()
                .withNewMetadata().withName(barePodName(spec.name(), i)).withNamespace(APP_NAMESPACE)
                .addToLabels("app", "debug").endMetadata()
                .withNewSpec().withNodeName(spec.name())
                .addNewContainer().withName("shell").withImage("ghcr.io/example/toolbox:1.0").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build();
    }

    /** A ReplicaSet's pod with an emptyDir volume. */
    private static Pod scratchPod(NodeSpec spec, int i) {
        return new PodBuilder()
                .withNewMetadata().withName(scratchPodName(spec.name(), i)).withNamespace(APP_NAMESPACE)
                .addToLabels("app", "cache")
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("cache-5c6d7e8f9a")
                .withUid("rs-cache-5c6d7e8f9a").withController(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withNodeName(spec.name())
                .addNewContainer().withName("cache").withImage("ghcr.io/example/cache:3.1")
                .addNewVolumeMount().withName("scratch").withMountPath("/var/cache/app").endVolumeMount().endContainer()
                .addNewVolume().withName("scratch").withNewEmptyDir().endEmptyDir().endVolume().endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build();
    }

    /** The node's DaemonSet pod. */
    private static Pod daemonSetPod(NodeSpec spec) {
        return new PodBuilder()
                .withNewMetadata().withName("kube-flannel-" + spec.name()).withNamespace(SYSTEM_NAMESPACE)
                .addToLabels("app", "flannel")
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("kube-flannel")
                .withUid("ds-kube-flannel").withController(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withNodeName(spec.name())
                .addNewContainer().withName("kube-flannel").withImage("ghcr.io/siderolabs/flannel:v0.27.4").endContainer()
                .endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build();
    }

    /** A control-plane node's static (mirror) pod. */
    private static Pod mirrorPod(NodeSpec spec, String nodeUid) {
        return new PodBuilder()
                .withNewMetadata().withName("kube-apiserver-" + spec.name()).withNamespace(SYSTEM_NAMESPACE)
                .addToAnnotations("kubernetes.io/config.mirror", "5b1f0c5a2e3d4c6b8a9f0e1d2c3b4a59")
                .addToAnnotations("kubernetes.io/config.source", "file")
                .addNewOwnerReference().withApiVersion("v1").withKind("Node").withName(spec.name())
                .withUid(nodeUid).withController(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withNodeName(spec.name())
                .addNewContainer().withName("kube-apiserver").withImage("registry.k8s.io/kube-apiserver:v1.34.1")
                .endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build();
    }

    /** Where batch-job pods run. */
    public static final String JOB_NAMESPACE = "jobs";
    /** The label of batch-job pods, for {@code --block-on-pod-selector app=batch}. */
    public static final String BATCH_LABEL = "app=batch";

    /** A running batch-job pod on the node, owned by a Job: evictable, and what a pod blocker waits for. */
    public static Pod batchJobPod(NodeSpec spec) {
        return new PodBuilder()
                .withNewMetadata().withName(batchJobPodName(spec.name())).withNamespace(JOB_NAMESPACE)
                .addToLabels("app", "batch")
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName("nightly-report")
                .withUid("job-nightly-report").withController(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withNodeName(spec.name()).withRestartPolicy("Never")
                .addNewContainer().withName("report").withImage("ghcr.io/example/report:2.0.1").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus()
                .build();
    }

    public static String batchJobPodName(String node) {
        return "nightly-report-" + node;
    }

    /** A pod without an owner: {@code <node>-bare-<i>}. */
    public static String barePodName(String node, int index) {
        return node + "-bare-" + index;
    }

    /** A ReplicaSet pod with an emptyDir volume: {@code <node>-scratch-<i>}. */
    public static String scratchPodName(String node, int index) {
        return node + "-scratch-" + index;
    }

    public static String appPodName(String node, int index) {
        return "web-7d9f8b6c5d-" + node + "-" + index;
    }

    private static Map<String, Quantity> resources(String cpu, String memory) {
        return Map.of("cpu", new Quantity(cpu),
                "memory", new Quantity(memory),
                "ephemeral-storage", new Quantity("50Gi"),
                "pods", new Quantity("110"));
    }
}
