package dev.crifresh.agent.host;

import dev.crifresh.common.registry.PullCredentials;
import dev.crifresh.common.text.IoErrors;
import dev.crifresh.common.text.StrictUtf8;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code hosts.toml} tree under {@code registry.config_path}, read under the host root (symlinks resolve
 * under it, as {@link HostPaths} does) the way containerd reads it at every pull: a directory that exists
 * (containerd's {@code os.Stat}) and its {@code hosts.toml}. Remembers every directory it was asked about, so
 * the watcher and the poll can look at them ({@link #consulted()}, {@link #stamps}); containerd re-reads them at
 * every pull, so a change there changes the credential a pull sends without a restart.
 */
public final class HostsDirectory implements PullCredentials.HostsFiles {
    /** No tree at all (simulated nodes, tests that have none). */
    public static final PullCredentials.HostsFiles NONE = new PullCredentials.HostsFiles() {
        @Override
        public PullCredentials.HostDir at(String nodePath) {
            return new PullCredentials.Missing();
        }

        @Override
        public List<String> directories(String nodePath) {
            return List.of();
        }

        @Override
        public PullCredentials.FileAt file(String nodePath) {
            return new PullCredentials.NoFile("does not exist");
        }
    };

    private static final long MAX_BYTES = ConfigFileReader.DEFAULT_MAX_BYTES;

    private final HostPaths paths;
    private final Set<String> consulted = ConcurrentHashMap.newKeySet();

    public HostsDirectory(HostPaths paths) {
        this.paths = paths;
    }

    @Override
    public PullCredentials.HostDir at(String nodePath) {
        consulted.add(nodePath);
        HostPaths.Resolved r = paths.resolve(nodePath);
        if (r.error() != null) {
            return new PullCredentials.Unreadable(r.error());
        }
        Path dir = paths.onHost(r.realPath());
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return new PullCredentials.Missing();
        } catch (IOException e) {
            return new PullCredentials.Unreadable(IoErrors.describe(e));
        }
        if (!a.isDirectory()) {
            return new PullCredentials.Unreadable("not a directory: containerd's pulls from this host fail");
        }
        Path file = dir.resolve("hosts.toml");
        try {
            if (Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isSymbolicLink()) {
                // containerd follows it on the node; read here it would follow the agent's own filesystem
                return new PullCredentials.Unreadable("hosts.toml is a symbolic link: the agent does not follow it");
            }
            if (Files.size(file) > MAX_BYTES) {
                return new PullCredentials.Unreadable("hosts.toml is larger than " + MAX_BYTES + " bytes");
            }
            String text = StrictUtf8.decode(Files.readAllBytes(file)).orElse(null);
            if (text == null) {
                return new PullCredentials.Unreadable("hosts.toml is not valid UTF-8");
            }
            return new PullCredentials.Found(text.isEmpty() ? null : text);
        } catch (NoSuchFileException e) {
            return new PullCredentials.Found(null);
        } catch (IOException e) {
            return new PullCredentials.Unreadable("hosts.toml: " + IoErrors.describe(e));
        }
    }

    @Override
    public List<String> directories(String nodePath) {
        consulted.add(nodePath);
        HostPaths.Resolved r = paths.resolve(nodePath);
        if (r.error() != null) {
            throw new UncheckedIOException(new IOException(nodePath + ": " + r.error()));
        }
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(paths.onHost(r.realPath()))) {
            for (Path e : entries) {
                if (Files.isDirectory(e)) {
                    out.add(e.getFileName().toString());
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (IOException e) {
            // an unlistable root hides the hosts only its directories name: a doubt, not fewer hosts
            throw new UncheckedIOException(new IOException(nodePath + ": " + IoErrors.describe(e), e));
        }
        out.sort(null);
        return out;
    }

    /**
     * A certificate file a {@code hosts.toml} names, as containerd's {@code os.ReadFile} finds it: symlinks followed
     * under the host root. Its directory counts as consulted, so that creating or deleting it is seen.
     */
    @Override
    public PullCredentials.FileAt file(String nodePath) {
        consulted.add(HostPaths.parent(nodePath));
        HostPaths.Resolved r = paths.resolve(nodePath);
        if (r.error() != null) {
            return new PullCredentials.Unreadable(r.error());
        }
        try {
            BasicFileAttributes a = Files.readAttributes(paths.onHost(r.realPath()), BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (a.isDirectory()) {
                return new PullCredentials.NoFile("is a directory");
            }
            if (!a.isRegularFile()) {
                return new PullCredentials.Unreadable("not a regular file");
            }
            return new PullCredentials.RegularFile();
        } catch (NoSuchFileException e) {
            return new PullCredentials.NoFile(r.symlinks().isEmpty() ? "does not exist"
                    : "does not exist (a symbolic link to nothing)");
        } catch (IOException e) {
            return new PullCredentials.Unreadable(IoErrors.describe(e));
        }
    }

    /** The node directories asked about so far (the {@code config_path} root and each host's candidates). */
    public Set<String> consulted() {
        return new TreeSet<>(consulted);
    }

    /**
     * A cheap signature of the consulted directories and their {@code hosts.toml}: a change (written in place,
     * replaced by a rename, created, deleted) moves one of these.
     */
    public Map<String, String> stamps(ChangeTimes times) {
        Map<String, String> out = new TreeMap<>();
        for (String dir : consulted()) {
            HostPaths.Resolved r = paths.resolve(dir);
            if (r.error() != null) {
                out.put("hosts " + dir, r.error());
                continue;
            }
            Path onHost = paths.onHost(r.realPath());
            out.put("hosts " + dir, stamp(onHost, times));
            out.put("hosts " + dir + "/hosts.toml", stamp(onHost.resolve("hosts.toml"), times));
        }
        return out;
    }

    private static String stamp(Path p, ChangeTimes times) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.lastModifiedTime() + "/" + times.ctime(p) + "/" + a.size() + "/" + a.fileKey();
        } catch (NoSuchFileException e) {
            return "missing";
        } catch (IOException e) {
            return "unreadable: " + e.getClass().getSimpleName();
        }
    }
}
