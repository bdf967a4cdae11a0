package dev.crifresh.agent.host;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Which mounts in containerd's mount table sit on the way to the evidence and were not created by the
 * platform. A tree mounted over a config file or directory, or over any directory above one, replaces
 * what containerd reads without moving a single stamp; so each such mount makes the verdict unknown.
 *
 * <p>Expected are: the root itself; Talos' shadow bind mounts (Talos writes each {@code /etc} file it
 * manages under {@code /system/etc} and bind-mounts it read-only onto the same path under {@code /etc}:
 * the mount's file system is the one mounted at {@code /system} and its root is the same path under
 * it — siderolabs/talos {@code internal/app/machined/pkg/controllers/files/etcfile.go},
 * {@code createBindMountFile}); and the mount points the operator lists ({@code --expected-mount}).
 * Mounts elsewhere (containers' root file systems, {@code /proc}, {@code /etc/cri/conf.d/hosts}) are not
 * on the way to the evidence and do not count.
 */
public final class MountCheck {
    private MountCheck() {
    }

    /**
     * @param mounts     containerd's mount table
     * @param evidence   node paths of the evidence: every config file and directory (symlinks resolved) and
     *                   every directory passed on the way to them
     * @param nodePrefix where the node's {@code /} is in containerd's mount table ({@code /} on a node;
     *                   a directory when a test renders a node under one)
     * @param expected   node paths of mount points the operator declared
     * @return one sentence per unexpected mount point, empty when there is none
     */
    public static List<String> unexpected(List<MountTable.Mount> mounts, Collection<String> evidence,
                                          String nodePrefix, Set<String> expected) {
        String systemDevice = null;
        String systemRoot = null;
        for (MountTable.Mount m : mounts) {
            if ("/system".equals(nodePath(m.mountPoint(), nodePrefix))) {
                systemDevice = m.device();
                systemRoot = m.root();
            }
        }
        List<String> problems = new ArrayList<>();
        for (MountTable.Mount m : mounts) {
            String node = nodePath(m.mountPoint(), nodePrefix);
            if (node == null || node.equals("/") || !evidence.contains(node) || expected.contains(node)) {
                continue;
            }
            boolean talosShadow = m.device().equals(systemDevice)
                    && m.root().equals(systemRoot.equals("/") ? node : systemRoot + node);
            if (!talosShadow) {
                problems.add("a " + m.fsType() + " file system (" + m.root() + " of " + m.source() + ") is mounted on "
                        + node);
            }
        }
        return problems;
    }

    /** The node path of a mount point, or null when it is outside the node's root. */
    static String nodePath(String mountPoint, String nodePrefix) {
        if (nodePrefix.equals("/")) {
            return mountPoint;
        }
        if (mountPoint.equals(nodePrefix)) {
            return "/";
        }
        return mountPoint.startsWith(nodePrefix + "/") ? mountPoint.substring(nodePrefix.length()) : null;
    }
}
