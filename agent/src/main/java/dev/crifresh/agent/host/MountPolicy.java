package dev.crifresh.agent.host;

import java.util.Set;

/**
 * How the agent reaches the evidence and which mounts on its way it accepts.
 *
 * @param throughContainerdRoot read the config through containerd's own root and mount namespace
 *                              ({@code <proc>/<pid>/root}, needs {@code CAP_SYS_PTRACE}) instead of the host
 *                              root: then a tree mounted in containerd's namespace only, or a directory
 *                              above {@code /etc/cri} that the agent's host-path mount does not show, is
 *                              read exactly as containerd reads it
 * @param expectedMounts        node paths of mount points on the way to the evidence that the platform
 *                              creates (besides Talos' own, recognised by themselves: {@link MountCheck})
 * @param nodePrefix            where the node's {@code /} is inside containerd's root: {@code /} on a node;
 *                              tests that render a node under a directory give that directory
 */
public record MountPolicy(boolean throughContainerdRoot, Set<String> expectedMounts, String nodePrefix) {
    public static final MountPolicy DEFAULT = new MountPolicy(false, Set.of(), "/");

    public MountPolicy {
        expectedMounts = Set.copyOf(expectedMounts);
        if (!nodePrefix.startsWith("/")) {
            throw new IllegalArgumentException("nodePrefix must be absolute: " + nodePrefix);
        }
        for (String m : expectedMounts) {
            if (!m.startsWith("/")) {
                throw new IllegalArgumentException("an expected mount must be an absolute path: " + m);
            }
        }
    }
}
