package dev.crifresh.coordinator.rollout.plan;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;

/** Which pods a drain evicts: not DaemonSet pods, not mirror (static) pods, not pods already terminating. */
public final class DrainSelection {
    public static final String MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

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

    public static String id(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
}
