package dev.crifresh.agent.host;

import dev.crifresh.common.registry.ContainerdConfigFile;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The files containerd loads, found the way containerd finds them: its config, then breadth first the
 * {@code imports} of every loaded file, each cleaned, a relative one joined to the directory of the file
 * that lists it, and expanded with Go's {@code filepath.Glob} when it contains {@code *} (otherwise taken
 * literally, {@code ?} and {@code [} included); a path already loaded is skipped (cycles). Glob matches
 * are whatever names match — directories and dangling symlinks included, which containerd would fail to
 * read — so they end up unreadable, as literal paths do.
 *
 * <p>Only watched files are read (their bytes were read and hashed already): a loaded file that is not
 * watched is reported, and the agent's verdict becomes unknown ({@code ConfigUnwatchedImport}).
 */
public final class ContainerdImports {
    private final HostPaths paths;

    /**
     * @param loaded      the files containerd loads that were found, in containerd's load order
     * @param unwatched   loaded files that are not watched, and imports that cannot be resolved, with why
     * @param directories node directories listed for glob imports (their stamps count as changes)
     */
    public record Closure(List<String> loaded, List<String> unwatched, Set<String> directories) {
        public Closure {
            loaded = List.copyOf(loaded);
            unwatched = List.copyOf(unwatched);
            directories = Set.copyOf(directories);
        }
    }

    public ContainerdImports(HostPaths paths) {
        this.paths = paths;
    }

    /**
     * @param config   the config containerd was started with (absolute node path)
     * @param watched  the watched files that were read: node path → text (null when unreadable or not
     *                 valid UTF-8; such a file makes the verdict unknown by itself)
     */
    public Closure resolve(String config, Map<String, String> watched) {
        List<String> loaded = new ArrayList<>();
        List<String> unwatched = new ArrayList<>();
        Set<String> directories = new LinkedHashSet<>();
        Set<String> seen = new HashSet<>();
        Deque<String> pending = new ArrayDeque<>(List.of(config));
        while (!pending.isEmpty()) {
            String path = pending.pop();
            if (!seen.add(path)) {
                continue;
            }
            if (!watched.containsKey(path)) {
                unwatched.add(path);
                continue;
            }
            loaded.add(path);
            String text = watched.get(path);
            if (text == null) {
                continue;
            }
            if (!(ContainerdConfigFile.parse(text) instanceof ContainerdConfigFile.Parsed parsed)) {
                continue; // the parse failure makes the verdict unknown (ConfigParseCheck)
            }
            for (String entry : parsed.imports()) {
                String cleaned = clean(entry.startsWith("/") ? entry : HostPaths.join(HostPaths.parent(path), entry));
                if (!cleaned.contains("*")) {
                    pending.add(cleaned);
                    continue;
                }
                try {
                    pending.addAll(glob(cleaned, directories));
                } catch (IllegalArgumentException | IOException e) {
                    unwatched.add(cleaned + " (import of " + path + " cannot be resolved: "
                            + (e instanceof IOException io ? IoErrors.describe(io) : e.getMessage()) + ")");
                }
            }
        }
        return new Closure(loaded, unwatched, directories);
    }

    /** Go's {@code filepath.Glob} for an absolute, cleaned pattern, under the host root. */
    List<String> glob(String pattern, Set<String> directories) throws IOException {
        validate(pattern);
        if (!GoGlob.hasMeta(pattern)) {
            return exists(pattern) ? List.of(pattern) : List.of();
        }
        String dir = HostPaths.parent(pattern);
        String file = pattern.substring(pattern.lastIndexOf('/') + 1);
        List<String> dirs = GoGlob.hasMeta(dir) ? glob(dir, directories) : List.of(dir);
        List<String> out = new ArrayList<>();
        for (String d : dirs) {
            out.addAll(matchIn(d, file, directories));
        }
        return out;
    }

    private List<String> matchIn(String dir, String pattern, Set<String> directories) throws IOException {
        HostPaths.Resolved resolved = paths.resolve(dir);
        if (resolved.error() != null) {
            throw new IOException(resolved.error());
        }
        Path onHost = paths.onHost(resolved.realPath());
        if (!Files.isDirectory(onHost)) {
            return List.of(); // as Go: a missing or non-directory parent matches nothing
        }
        directories.add(dir);
        Set<String> names = new TreeSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(onHost)) {
            for (Path e : entries) {
                String name = e.getFileName().toString();
                if (GoGlob.matches(pattern, name)) {
                    names.add(name);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        return names.stream().map(n -> HostPaths.join(dir, n)).toList();
    }

    private boolean exists(String nodePath) {
        HostPaths.Resolved r = paths.resolve(HostPaths.parent(nodePath));
        if (r.error() != null) {
            return true; // let the read report it
        }
        String name = nodePath.substring(nodePath.lastIndexOf('/') + 1);
        return Files.exists(paths.onHost(HostPaths.join(r.realPath(), name)), LinkOption.NOFOLLOW_LINKS);
    }

    /** Go checks the whole pattern before listing anything. */
    private static void validate(String pattern) {
        for (String part : pattern.split("/")) {
            GoGlob.matches(part, "");
        }
    }

    /** Go's {@code filepath.Clean} for an absolute path: no empty, {@code .} or {@code ..} segments. */
    static String clean(String path) {
        Deque<String> out = new ArrayDeque<>();
        for (String s : path.split("/")) {
            if (s.isEmpty() || s.equals(".")) {
                continue;
            }
            if (s.equals("..")) {
                out.pollLast();
            } else {
                out.addLast(s);
            }
        }
        return "/" + String.join("/", out);
    }
}
