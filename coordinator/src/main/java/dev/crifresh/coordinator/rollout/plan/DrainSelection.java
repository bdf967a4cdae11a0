package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.base.DrainRules;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which pods a drain evicts, and which ones it refuses to, with kubectl drain's semantics ({@code k8s.io/kubectl}
 * {@code pkg/drain/filters.go}, docs/coordinator.md "What a drain evicts"):
 * <ul>
 *   <li>never DaemonSet pods (their controller puts them back at once) nor mirror (static) pods, nor the coordinator's
 *       own pod;</li>
 *   <li>not pods already terminating: they are on their way out;</li>
 *   <li>a pod that declares no controller is refused unless {@link DrainRules#force()} (kubectl's unreplicatedFilter):
 *       evicted, it is gone for good, where a reboot alone would only have restarted it;</li>
 *   <li>a pod with an {@code emptyDir} volume is refused unless {@link DrainRules#deleteEmptyDirData()} (kubectl's
 *       localStorageFilter): its data is lost;</li>
 *   <li>a finished pod (phase Succeeded or Failed) is never refused: it has nothing left to lose.</li>
 * </ul>
 */
public final class DrainSelection {
    public static final String MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

    /** Why a drain refuses to evict a pod without an opt-in, and the flag that allows it. */
    public enum Refusal {
        UNMANAGED("declares no controller", "--force"),
        EMPTY_DIR("has emptyDir data", "--delete-emptydir-data");

        private final String text;
        private final String flag;

        Refusal(String text, String flag) {
            this.text = text;
            this.flag = flag;
        }

        public String text() {
            return text;
        }

        public String flag() {
            return flag;
        }
    }

    /** A pod the drain refuses to evict ({@code namespace/name}), and every reason. */
    public record Refused(String pod, List<Refusal> reasons) {
        public Refused {
            reasons = List.copyOf(reasons);
        }

        @Override
        public String toString() {
            return pod + " (" + reasons.stream().map(r -> r.text() + ", " + r.flag()).collect(Collectors.joining("; ")) + ")";
        }
    }

    private DrainSelection() {
    }

    public static boolean daemonSetPod(Pod pod) {
        if (pod.getMetadata().getOwnerReferences() == null) {
            return false;
        }
        for (OwnerReference ref : pod.getMetadata().getOwnerReferences()) {
            if ("DaemonSet".equals(ref.getKind())) {
                return true;
            }
        }
        return false;
    }

    public static boolean mirrorPod(Pod pod) {
        var annotations = pod.getMetadata().getAnnotations();
        return annotations != null && annotations.get(MIRROR_ANNOTATION) != null;
    }

    public static boolean terminating(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null;
    }

    /** Pods a drain must never evict, whatever their state. */
    public static boolean neverEvicted(Pod pod) {
        return daemonSetPod(pod) || mirrorPod(pod);
    }

    /** Like {@link #neverEvicted(Pod)}, and the coordinator's own pod. */
    public static boolean neverEvicted(Pod pod, DrainRules rules) {
        return neverEvicted(pod) || self(pod, rules);
    }

    /** Whether the pod is the coordinator's own ({@link DrainRules#selfPod()}). */
    public static boolean self(Pod pod, DrainRules rules) {
        return rules.selfPod() != null && rules.selfPod().equals(id(pod));
    }

    /** Phase Succeeded or Failed: its containers are done, nothing of it is lost by evicting it. */
    public static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** Whether an owner reference with {@code controller: true} names who recreates the pod (metav1.GetControllerOf). */
    public static boolean controlled(Pod pod) {
        List<OwnerReference> refs = pod.getMetadata().getOwnerReferences();
        return refs != null && refs.stream().anyMatch(r -> Boolean.TRUE.equals(r.getController()));
    }

    public static boolean hasEmptyDir(Pod pod) {
        List<Volume> volumes = pod.getSpec() == null ? null : pod.getSpec().getVolumes();
        return volumes != null && volumes.stream().anyMatch(v -> v.getEmptyDir() != null);
    }

    /** Why the drain refuses to evict this pod under {@code rules}; empty when it may be evicted (or is never evicted). */
    public static List<Refusal> refusals(Pod pod, DrainRules rules) {
        if (neverEvicted(pod, rules) || terminating(pod) || finished(pod)) {
            return List.of();
        }
        List<Refusal> why = new ArrayList<>(2);
        if (!rules.force() && !controlled(pod)) {
            why.add(Refusal.UNMANAGED);
        }
        if (!rules.deleteEmptyDirData() && hasEmptyDir(pod)) {
            why.add(Refusal.EMPTY_DIR);
        }
        return why;
    }

    /** The pods of one node the drain refuses to evict, in the order given; empty: the node can be drained. */
    public static List<Refused> refused(List<Pod> pods, DrainRules rules) {
        List<Refused> refused = new ArrayList<>();
        for (Pod pod : pods) {
            List<Refusal> why = refusals(pod, rules);
            if (!why.isEmpty()) {
                refused.add(new Refused(id(pod), why));
            }
        }
        return refused;
    }

    /** The report's words for a node the run does not drain: every refused pod named, with the flag that would allow it. */
    public static String notDrainable(List<Refused> refused) {
        return "not rolled: draining it would lose " + (refused.size() == 1 ? "a pod" : refused.size() + " pods")
                + " a reboot alone only restarts: " + refused.stream().map(Refused::toString).collect(Collectors.joining(", "));
    }

    public static String id(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
}
