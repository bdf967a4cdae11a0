package dev.crifresh.agent.host;

import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Node paths resolved under the host root the way the node's kernel resolves them for containerd:
 * symlinks are followed one component at a time, an absolute link target starts again at the host
 * root (never at the agent's own root) and {@code ..} never climbs above it. Records every symlink on
 * the way, because re-pointing one ({@code ln -sfn}) changes what containerd would read.
 */
public final class HostPaths {
    /** Linux' limit on symlinks followed in one lookup (ELOOP beyond it). */
    static final int MAX_SYMLINKS = 40;

    private final Path hostRoot;
    /** See {@link OwnMounts}: empty when every directory under the host root is the node's. */
    private final List<String> volumes;

    /**
     * @param nodePath the path as asked for
     * @param realPath the same file without symlinks (node path); may not exist
     * @param symlinks node paths of every symlink followed, in order
     * @param error    why the path cannot be resolved (a symlink loop, a file used as a directory,
     *                 an unreadable component); null when it resolved (or simply does not exist)
     * @param directories node paths (without symlinks) of every directory the lookup passed through below
     *                 the root, in order, symlink targets' parents included: a directory renamed into
     *                 place gets a new ctime, so their ctimes show a tree swapped anywhere on the way
     */
    public record Resolved(String nodePath, String realPath, List<String> symlinks, String error,
                           List<String> directories) {
        public Resolved {
            symlinks = List.copyOf(symlinks);
            directories = List.copyOf(new LinkedHashSet<>(directories));
        }

        public Resolved(String nodePath, String realPath, List<String> symlinks, String error) {
            this(nodePath, realPath, symlinks, error, List.of());
        }
    }

    public HostPaths(Path hostRoot) {
        this(hostRoot, OwnMounts.under(hostRoot));
    }

    /** @param volumes node paths of the agent's own mounts below the host root ({@link OwnMounts}) */
    HostPaths(Path hostRoot, List<String> volumes) {
        this.hostRoot = hostRoot;
        this.volumes = List.copyOf(volumes);
    }

    /**
     * Whether this directory (a node path) shows the node, so that its stamps are evidence: always, unless
     * the agent sees the node through mounts below the host root, and then only at or below one of them.
     */
    public boolean showsNode(String nodeDir) {
        return volumes.isEmpty() || volumes.stream().anyMatch(v -> nodeDir.equals(v) || nodeDir.startsWith(v + "/"));
    }

    /** A node path under the host root, as is (no symlink resolved). */
    public Path onHost(String nodePath) {
        String relative = nodePath.replaceFirst("^/+", "");
        return relative.isEmpty() ? hostRoot : hostRoot.resolve(relative);
    }

    public Resolved resolve(String nodePath) {
        Deque<String> pending = new ArrayDeque<>(components(nodePath));
        List<String> links = new ArrayList<>();
        List<String> passed = new ArrayList<>();
        String current = "/";
        int hops = 0;
        while (!pending.isEmpty()) {
            String c = pending.pop();
            if (c.isEmpty() || c.equals(".")) {
                continue;
            }
            if (c.equals("..")) {
                current = parent(current);
                continue;
            }
            String next = join(current, c);
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(onHost(next), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                StringBuilder rest = new StringBuilder(next);
                pending.forEach(r -> rest.append('/').append(r));
                return new Resolved(nodePath, normalise(rest.toString()), links, null, passed);
            } catch (IOException e) {
                return new Resolved(nodePath, next, links, next + ": " + IoErrors.describe(e), passed);
            }
            if (a.isSymbolicLink()) {
                if (++hops > MAX_SYMLINKS) {
                    return new Resolved(nodePath, next, links, "too many levels of symbolic links at " + next, passed);
                }
                links.add(next);
                String target;
                try {
                    target = Files.readSymbolicLink(onHost(next)).toString();
                } catch (IOException e) {
                    return new Resolved(nodePath, next, links, next + ": " + IoErrors.describe(e), passed);
                }
                List<String> parts = components(target);
                for (int i = parts.size() - 1; i >= 0; i--) {
                    pending.push(parts.get(i));
                }
                if (target.startsWith("/")) {
                    current = "/";
                }
                continue;
            }
            if (!pending.isEmpty() && !a.isDirectory()) {
                return new Resolved(nodePath, next, links, next + " is not a directory", passed);
            }
            if (!pending.isEmpty()) {
                passed.add(next);
            }
            current = next;
        }
        return new Resolved(nodePath, current, links, null, passed);
    }

    /** The directory part of a node path ({@code /} for a top-level name). */
    public static String parent(String nodePath) {
        int slash = nodePath.lastIndexOf('/');
        return slash <= 0 ? "/" : nodePath.substring(0, slash);
    }

    public static String join(String dir, String name) {
        return dir.equals("/") ? "/" + name : dir + "/" + name;
    }

    private static String normalise(String path) {
        return path.replaceAll("/+", "/");
    }

    private static List<String> components(String path) {
        List<String> out = new ArrayList<>();
        for (String s : path.split("/")) {
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }
}
