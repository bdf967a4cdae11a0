package dev.crifresh.coordinator.base;

/**
 * What a drain may evict beyond the pods a controller recreates, and where the coordinator itself runs.
 *
 * @param force              evict pods that declare no controller (kubectl drain's {@code --force}): such a pod is gone
 *                           for good once evicted
 * @param deleteEmptyDirData evict pods with an {@code emptyDir} volume (kubectl drain's {@code --delete-emptydir-data}):
 *                           the volume's data is lost
 * @param selfNode           the node the coordinator runs on ({@code --self-node}, or {@code NODE_NAME} in the chart's
 *                           Job), or null when unknown: that node is never rolled by this run
 * @param selfPod            the coordinator's own pod as {@code namespace/name} ({@code POD_NAMESPACE}/{@code POD_NAME}),
 *                           or null: never evicted
 */
public record DrainRules(boolean force, boolean deleteEmptyDirData, String selfNode, String selfPod) {
    /** kubectl drain's defaults: neither flag; the coordinator's place unknown. */
    public static final DrainRules KUBECTL_DEFAULTS = new DrainRules(false, false, null, null);

    public DrainRules {
        selfNode = blankToNull(selfNode);
        selfPod = blankToNull(selfPod);
    }

    public DrainRules withForce(boolean v) {
        return new DrainRules(v, deleteEmptyDirData, selfNode, selfPod);
    }

    public DrainRules withSelf(String node, String pod) {
        return new DrainRules(force, deleteEmptyDirData, node, pod);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
