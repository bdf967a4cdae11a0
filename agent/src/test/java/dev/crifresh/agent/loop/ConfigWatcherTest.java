package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.HostPaths;
import dev.crifresh.agent.host.WatchGlobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real inotify events on a real directory tree. */
class ConfigWatcherTest {
    @TempDir
    Path host;
    private static final Set<String> WATCHED = Set.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml",
            "/etc/cri/conf.d/01-registries.part", "/etc/cri/conf.d/20-x.part");
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

    /** Waits for an event naming {@code path}; every event seen on the way must name a watched file. */
    private void expect(String path) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e == null) {
                continue;
            }
            assertTrue(WATCHED.contains(e) || e.endsWith(" (directory replaced)"), "unexpected event " + e);
            if (e.equals(path)) {
                return;
            }
        }
        throw new AssertionError("no event for " + path + " within 10 s");
    }

    @Test
    void reportsInPlaceWritesRenamesAndDeletesOfWatchedNamesOnly() throws Exception {
        Path confd = Files.createDirectories(host.resolve("etc/cri/conf.d"));
        try (ConfigWatcher watcher = watching(new WatchGlobs(host, WatchGlobs.TALOS_DEFAULT))) {
            watcher.start();
            assertEquals(2, watcher.watchedDirectories());

            Files.writeString(confd.resolve("unrelated.txt"), "x");
            Files.writeString(confd.resolve("cri.toml"), "in place");
            expect("/etc/cri/conf.d/cri.toml");

            Path tmp = Files.writeString(host.resolve("etc/cri/.containerd.toml.tmp"), "renamed");
            Files.move(tmp, host.resolve("etc/cri/containerd.toml"), StandardCopyOption.ATOMIC_MOVE);
            expect("/etc/cri/containerd.toml");

            Files.writeString(confd.resolve("01-registries.part"), "auth");
            expect("/etc/cri/conf.d/01-registries.part");
            Files.delete(confd.resolve("01-registries.part"));
            expect("/etc/cri/conf.d/01-registries.part");
        }
    }

    @Test
    void aDirectoryCreatedLaterIsWatchedOnceRegistered() throws Exception {
        Files.createDirectories(host.resolve("etc/cri"));
        try (ConfigWatcher watcher = watching(new WatchGlobs(host, WatchGlobs.TALOS_DEFAULT))) {
            watcher.start();
            assertEquals(1, watcher.watchedDirectories());
            Path confd = Files.createDirectories(host.resolve("etc/cri/conf.d"));
            assertEquals(1, watcher.registerMissing());
            assertEquals(0, watcher.registerMissing());
            Files.writeString(confd.resolve("20-x.part"), "y");
            expect("/etc/cri/conf.d/20-x.part");
        }
    }

    @Test
    void aReplacedDirectoryIsWatchedAgain() throws Exception {
        Path confd = Files.createDirectories(host.resolve("etc/cri/conf.d"));
        Files.writeString(confd.resolve("cri.toml"), "v1");
        try (ConfigWatcher watcher = watching(new WatchGlobs(host, WatchGlobs.TALOS_DEFAULT))) {
            watcher.start();
            assertEquals(2, watcher.watchedDirectories());
            // A new conf.d is prepared aside and swapped in by rename: the old watch follows the old inode.
            Path next = Files.createDirectories(host.resolve("etc/cri/conf.d.next"));
            Files.writeString(next.resolve("cri.toml"), "v2");
            Files.move(confd, host.resolve("etc/cri/conf.d.old"), StandardCopyOption.ATOMIC_MOVE);
            Files.move(next, confd, StandardCopyOption.ATOMIC_MOVE);

            assertEquals(1, watcher.registerMissing(), "the replaced directory is registered again");
            expect("/etc/cri/conf.d (directory replaced)");
            assertEquals(0, watcher.registerMissing());
            assertEquals(2, watcher.watchedDirectories());
            Files.writeString(confd.resolve("cri.toml"), "v3");
            expect("/etc/cri/conf.d/cri.toml");
        }
    }

    /**
     * Issue 36, H5: containerd re-reads hosts.toml at every pull, so the directories the last evaluation read it
     * from are watched too, and any name in them counts — an in-place rewrite, a file renamed over it by mv.
     */
    @Test
    void theHostsTomlDirectoriesTheLastEvaluationReadAreWatched() throws Exception {
        Files.createDirectories(host.resolve("etc/cri/conf.d"));
        Path dir = Files.createDirectories(host.resolve("etc/cri/conf.d/hosts/127.0.0.1_5000_"));
        Files.writeString(dir.resolve("hosts.toml"), "server = \"http://127.0.0.1:5000\"\n");
        Set<String> consulted = new java.util.concurrent.CopyOnWriteArraySet<>();
        try (ConfigWatcher watcher = new ConfigWatcher(new WatchGlobs(host, WatchGlobs.TALOS_DEFAULT),
                new dev.crifresh.agent.host.HostPaths(host), () -> consulted, events::add, "test-watch")) {
            watcher.start();
            assertEquals(2, watcher.watchedDirectories());
            // what an evaluation read: the config_path root and the registry's directory
            consulted.addAll(Set.of("/etc/cri/conf.d/hosts", "/etc/cri/conf.d/hosts/127.0.0.1_5000_"));
            assertEquals(2, watcher.registerMissing());

            Files.writeString(dir.resolve("hosts.toml"), "server = \"http://registry-alias:5000\"\n");
            awaitEvent("/etc/cri/conf.d/hosts/127.0.0.1_5000_/hosts.toml");
            Path staged = Files.writeString(host.resolve("etc/cri/conf.d/hosts/staged.toml"), "server = \"x\"\n");
            Files.move(staged, dir.resolve("hosts.toml"), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            awaitEvent("/etc/cri/conf.d/hosts/127.0.0.1_5000_/hosts.toml");
            Files.createDirectories(host.resolve("etc/cri/conf.d/hosts/_default"));
            awaitEvent("/etc/cri/conf.d/hosts/_default");
        }
    }

    private void awaitEvent(String path) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String e = events.poll(100, TimeUnit.MILLISECONDS);
            if (path.equals(e)) {
                return;
            }
        }
        throw new AssertionError("no event for " + path + " within 10 s");
    }

    /** A watcher of {@code globs} on the host root, without hosts.toml directories, reporting into {@code events}. */
    private ConfigWatcher watching(WatchGlobs globs) {
        return new ConfigWatcher(globs, new HostPaths(globs.onHost("/")), Set::of, events::add, "test-watch");
    }
}
