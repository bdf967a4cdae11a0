package dev.crifresh.coordinator.kube;

import java.util.List;

/**
 * What the Kubernetes cluster autoscaler writes on Nodes, and the annotation it reads (from its source only:
 * {@code cluster-autoscaler/utils/taints/taints.go} lines 41 and 43 define the two taints,
 * {@code cluster-autoscaler/core/scaledown/eligibility/eligibility.go} the annotation).
 */
public final class ClusterAutoscaler {
    private ClusterAutoscaler() {
    }

    /** NoSchedule: the autoscaler is draining the node and will delete it. */
    public static final String TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler";
    /** PreferNoSchedule: the autoscaler found the node unneeded and may remove it soon. */
    public static final String DELETION_CANDIDATE = "DeletionCandidateOfClusterAutoscaler";
    /** Taint keys that mean the node is leaving the cluster. */
    public static final List<String> LEAVING_TAINTS = List.of(TO_BE_DELETED, DELETION_CANDIDATE);

    /** {@code "true"}: the autoscaler does not scale the node down. */
    public static final String SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled";
}
