package dev.crifresh.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's own mount points at or below the host root, as node paths. In a pod the host root
 * ({@code /host}) is a directory of the container's own file system with the node's directories mounted
 * into it ({@code /host/etc/cri}); the directories above those mounts ({@code /host}, {@code /host/etc})
 * are made by the container runtime when the pod starts, so their stamps say nothing about the node. An
 * empty list means the whole host root is the node's (the host root is {@code /}, is itself a mount, or
 * has no mount below it: a host install, a simulated host, the tests).
 */
final class OwnMounts {
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

    private OwnMounts() {
    }

    static List<String> under(Path hostRoot) {
        List<String> lines;
        try {
            lines = Files.readAllLines(MOUNTINFO);
        } catch (IOException | RuntimeException e) {
            return List.of(); // every directory counts: more stamps, never fewer
        }
        return under(hostRoot.toAbsolutePath().normalize().toString(), lines);
    }

    /** @param root the host root as an absolute, normalised path of the agent's own namespace */
    static List<String> under(String root, List<String> mountinfo) {
        List<String> volumes = new ArrayList<>();
        for (String line : mountinfo) {
            String[] f = line.split(" ");
            if (f.length < 5) {
                continue;
            }
            String point = unescape(f[4]);
            if (point.equals(root) || root.equals("/")) {
                return List.of();
            }
            if (point.startsWith(root + "/")) {
                volumes.add(point.substring(root.length()));
            }
        }
        return List.copyOf(volumes);
    }

    /** mountinfo escapes space, tab, newline and backslash as octal ({@code \040}). */
    private static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
