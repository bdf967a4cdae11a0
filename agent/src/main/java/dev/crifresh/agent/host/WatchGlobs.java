package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.WatchedFile;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The watched config files: absolute node paths, wildcards ({@code * ? [ ] { }}) allowed in the file
 * name only, resolved under the host root ({@link HostPaths}: symlinks resolve under it, never in the
 * agent's own file system). A literal path is always part of the set (a missing one is reported as
 * unreadable); a wildcard matches whatever names exist now — a matching directory or dangling symlink is
 * part of the set too, and reads as unreadable, as a literal path would.
 */
public final class WatchGlobs {
    /** docs/design.md, "containerd's config semantics": what Talos' CRI containerd loads. */
    public static final List<String> TALOS_DEFAULT =
            List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml", "/etc/cri/conf.d/*.part");

    private static final String WILDCARDS = "*?[]{}";

    private final Path hostRoot;
    private final HostPaths paths;
    private final List<Glob> globs;

    private record Glob(String text, String dir, String name, PathMatcher matcher) {
        boolean literal() {
            return matcher == null;
        }

        boolean matches(String fileName) {
            return literal() ? name.equals(fileName) : matcher.matches(Path.of(fileName));
        }
    }

    /** What {@link #expand} found: node paths to read, and globs whose directory could not be listed. */
    public record Expansion(List<String> paths, List<WatchedFile> unlistable) {
        public Expansion {
            paths = List.copyOf(paths);
            unlistable = List.copyOf(unlistable);
        }
    }

    public WatchGlobs(Path hostRoot, List<String> globs) {
        this.hostRoot = hostRoot;
        this.paths = new HostPaths(hostRoot);
        List<Glob> parsed = new ArrayList<>();
        for (String g : globs) {
            validate(g);
            int slash = g.lastIndexOf('/');
            String dir = slash == 0 ? "/" : g.substring(0, slash);
            String name = g.substring(slash + 1);
            PathMatcher matcher = hasWildcard(name) ? FileSystems.getDefault().getPathMatcher("glob:" + name) : null;
            parsed.add(new Glob(g, dir, name, matcher));
        }
        this.globs = List.copyOf(parsed);
    }

    /**
     * Checks one glob.
     *
     * @throws IllegalArgumentException naming the glob and what is wrong with it
     */
    public static void validate(String glob) {
        if (glob == null || !glob.startsWith("/")) {
            throw new IllegalArgumentException("watch glob must be an absolute node path: " + glob);
        }
        if (glob.endsWith("/")) {
            throw new IllegalArgumentException("watch glob must name files, not a directory: " + glob);
        }
        String[] segments = glob.substring(1).split("/");
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            if (s.isEmpty() || s.equals(".") || s.equals("..")) {
                throw new IllegalArgumentException("watch glob has an empty, '.' or '..' segment: " + glob);
            }
            if (i < segments.length - 1 && hasWildcard(s)) {
                throw new IllegalArgumentException("watch glob may use wildcards only in the file name: " + glob);
            }
        }
    }

    /**
     * The node paths the globs name right now, in the order of the globs (a wildcard's matches sorted by
     * name), without duplicates.
     */
    public Expansion expand() {
        Set<String> paths = new LinkedHashSet<>();
        List<WatchedFile> unlistable = new ArrayList<>();
        for (Glob g : globs) {
            if (g.literal()) {
                paths.add(g.text());
                continue;
            }
            Set<String> matched = new TreeSet<>();
            HostPaths.Resolved dirPath = this.paths.resolve(g.dir());
            if (dirPath.error() != null) {
                unlistable.add(WatchedFile.unreadable(g.text(), "cannot list " + g.dir() + ": " + dirPath.error()));
                continue;
            }
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(this.paths.onHost(dirPath.realPath()))) {
                for (Path p : dir) {
                    String name = p.getFileName().toString();
                    if (g.matches(name)) {
                        matched.add(join(g.dir(), name));
                    }
                }
                paths.addAll(matched);
            } catch (NoSuchFileException | NotDirectoryException e) {
                // No directory, no matching file: a wildcard may match nothing.
            } catch (IOException e) {
                unlistable.add(WatchedFile.unreadable(g.text(), "cannot list " + g.dir() + ": " + IoErrors.describe(e)));
            }
        }
        return new Expansion(new ArrayList<>(paths), unlistable);
    }

    /** The node directories that hold watched files. */
    public Set<String> directories() {
        Set<String> dirs = new LinkedHashSet<>();
        globs.forEach(g -> dirs.add(g.dir()));
        return dirs;
    }

    /** Whether a file named {@code fileName} in node directory {@code nodeDir} is watched. */
    public boolean matches(String nodeDir, String fileName) {
        for (Glob g : globs) {
            if (g.dir().equals(nodeDir) && g.matches(fileName)) {
                return true;
            }
        }
        return false;
    }

    /** A node path resolved under the host root. */
    public Path onHost(String nodePath) {
        return hostRoot.resolve(nodePath.substring(1));
    }

    private static String join(String dir, String name) {
        return dir.equals("/") ? "/" + name : dir + "/" + name;
    }

    private static boolean hasWildcard(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (WILDCARDS.indexOf(s.charAt(i)) >= 0) {
                return true;
            }
        }
        return false;
    }
}
