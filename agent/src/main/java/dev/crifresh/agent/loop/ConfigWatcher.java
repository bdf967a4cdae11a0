package dev.crifresh.agent.loop;

import dev.crifresh.agent.host.HostPaths;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.WatchGlobs;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the directories that hold the watched files (inotify on Linux). Writers differ: Talos
 * truncates and writes in place, others write a temp file and rename, so a CREATE, MODIFY or DELETE
 * of a watched name all count as a change. A directory that does not exist yet is registered by
 * {@link #registerMissing()}, which the loop calls on every poll; it also re-registers a directory that
 * was replaced (renamed or deleted and created again: an inotify watch stays on the old inode) and
 * reports that as a change. Directories resolve under the host root ({@link HostPaths}). Events are reported on this
 * watcher's own thread; the receiver hands them to its event loop.
 * <p>Besides the config's directories it watches the {@code hosts.toml} directories the last evaluation
 * consulted ({@code registry.config_path} and each host's candidates, {@link HostReader#hostsDirectories()}):
 * containerd re-reads them at every pull, so any entry created, written, renamed or deleted there counts.
 */
final class ConfigWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigWatcher.class);

    private final WatchGlobs globs;
    private final Consumer<String> onChange;
    private final String threadName;
    private final HostPaths paths;
    private final Supplier<Set<String>> hostsDirectories;
    private volatile Set<String> hostsWatched = Set.of();
    private final Map<WatchKey, String> dirsByKey = new ConcurrentHashMap<>();
    private final Map<String, WatchKey> keysByDir = new ConcurrentHashMap<>();
    private final Map<String, Object> inodesByDir = new ConcurrentHashMap<>();
    private volatile WatchService service;
    private volatile Thread thread;

    /**
     * @param hostsDirectories the {@code hosts.toml} directories to watch too (every name in them counts)
     * @param onChange         receives the node path (or directory) that changed, on the watcher thread
     */
    ConfigWatcher(WatchGlobs globs, HostPaths paths, Supplier<Set<String>> hostsDirectories,
                  Consumer<String> onChange, String threadName) {
        this.hostsDirectories = hostsDirectories;
        this.globs = globs;
        this.paths = paths;
        this.onChange = onChange;
        this.threadName = threadName;
    }

    void start() throws IOException {
        service = FileSystems.getDefault().newWatchService();
        registerMissing();
        Thread t = new Thread(this::run, threadName);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /**
     * Registers every watched directory that exists but is not registered yet, or whose inode changed
     * since it was registered (then the change is reported). Returns how many were (re-)registered.
     */
    synchronized int registerMissing() {
        WatchService ws = service;
        if (ws == null) {
            return 0;
        }
        int added = 0;
        Set<String> hosts = Set.copyOf(hostsDirectories.get());
        hostsWatched = hosts;
        Set<String> dirs = new LinkedHashSet<>(globs.directories());
        dirs.addAll(hosts);
        for (String dir : dirs) {
            HostPaths.Resolved resolved = paths.resolve(dir);
            if (resolved.error() != null) {
                continue;
            }
            Path onHost = paths.onHost(resolved.realPath());
            Object inode;
            try {
                BasicFileAttributes a = Files.readAttributes(onHost, BasicFileAttributes.class);
                if (!a.isDirectory()) {
                    continue;
                }
                inode = a.fileKey() == null ? onHost : a.fileKey();
            } catch (IOException e) {
                continue;
            }
            WatchKey existing = keysByDir.get(dir);
            if (existing != null && existing.isValid() && inode.equals(inodesByDir.get(dir))) {
                continue;
            }
            boolean replaced = existing != null;
            if (existing != null) {
                existing.cancel();
                dirsByKey.remove(existing);
                keysByDir.remove(dir);
            }
            try {
                WatchKey key = onHost.register(ws, StandardWatchEventKinds.ENTRY_CREATE,
                        StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
                dirsByKey.put(key, dir);
                keysByDir.put(dir, key);
                inodesByDir.put(dir, inode);
                added++;
            } catch (ClosedWatchServiceException e) {
                return added;
            } catch (IOException e) {
                LOG.warn("cannot watch {}: {}", dir, e.getMessage());
            }
            if (replaced) {
                onChange.accept(dir + " (directory replaced)");
            }
        }
        return added;
    }

    int watchedDirectories() {
        return dirsByKey.size();
    }

    private void run() {
        // close() sets the field to null and closes the service: read it once, so that a close ends take()
        // with ClosedWatchServiceException instead of the next loop reading null
        WatchService ws = service;
        if (ws == null) {
            return;
        }
        try {
            while (true) {
                WatchKey key = ws.take();
                String dir = dirsByKey.get(key);
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        onChange.accept(dir == null ? "(events lost)" : dir + " (events lost)");
                    } else if (dir != null && event.context() instanceof Path name
                            && (globs.matches(dir, name.toString()) || hostsWatched.contains(dir))) {
                        onChange.accept(dir.equals("/") ? "/" + name : dir + "/" + name);
                    }
                }
                if (!key.reset()) {
                    dirsByKey.remove(key);
                    if (dir != null) {
                        keysByDir.remove(dir, key);
                    }
                    if (dir != null) {
                        onChange.accept(dir + " (directory gone)");
                    }
                }
            }
        } catch (ClosedWatchServiceException e) {
            // closed: stop quietly
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        WatchService ws = service;
        service = null;
        if (ws != null) {
            try {
                ws.close();
            } catch (IOException e) {
                LOG.debug("closing watch service: {}", e.getMessage());
            }
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }
}
