package dev.crifresh.sim.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.UnixSocketTable;
import dev.crifresh.common.evidence.ContainerdListener;
import dev.crifresh.sim.scenario.Credential;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostRootTest {
    @TempDir
    Path dir;

    @Test
    void containerdsSocketIsARealSocketInodeEvenWhereItsPathIsTooLongToBind() throws Exception {
        Instant epochish = Instant.parse("1970-01-02T03:04:05.123456Z");
        for (HostRoot host : List.of(new HostRoot(dir.resolve("short")),
                new HostRoot(dir.resolve("n".repeat(120))))) { // beyond sun_path's 108 bytes
            host.bindContainerdSocket(epochish);
            Path socket = host.file(HostRoot.CONTAINERD_SOCKET);
            int mode = (Integer) Files.getAttribute(socket, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            assertEquals(0140000, mode & 0170000, socket + " is a socket");
            assertEquals(epochish, Files.getLastModifiedTime(socket).toInstant());
            host.bindContainerdSocket(epochish.plusSeconds(1)); // containerd restarts: unlink, bind again
            assertEquals(epochish.plusSeconds(1), Files.getLastModifiedTime(socket).toInstant());
            host.removeContainerdSocket();
            assertFalse(Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        }
    }

    @Test
    void aBootLaysOutTalosProcAndConfigWithTheGivenTimes() throws Exception {
        HostRoot host = new HostRoot(dir);
        Instant boot = Instant.parse("2026-01-01T00:00:00Z");
        host.boot("b-1", boot, 811);
        host.renderConfig("ghcr.io", new Credential("u", "p"), boot.plusSeconds(1), boot.plusMillis(3250));
        host.startCriContainerd(1201, 600);

        assertEquals("b-1\n", Files.readString(dir.resolve("proc/sys/kernel/random/boot_id")));
        assertTrue(Files.readString(dir.resolve("proc/uptime")).matches("\\d+\\.\\d\\d \\d+\\.\\d\\d\\n"));
        assertEquals(Set.of("1", "811", "1201", "sys", "uptime"), list(dir.resolve("proc")));
        assertTrue(Files.readString(dir.resolve("proc/1201/stat")).startsWith("1201 (containerd) S 1 "));
        assertTrue(Files.readString(dir.resolve("proc/811/cmdline")).contains("/system/run/containerd/containerd.sock"));

        assertEquals(boot.plusSeconds(1), mtime("etc/cri/containerd.toml"));
        assertEquals(boot.plusSeconds(1), mtime("etc/cri/conf.d/00-base.part"));
        assertEquals(boot.plusMillis(3250), mtime("etc/cri/conf.d/01-registries.part"));
        assertEquals(boot.plusMillis(3250), mtime("etc/cri/conf.d/cri.toml"));
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("etc/cri/conf.d/01-registries.part"))));
    }

    @Test
    void aConfigChangeRewritesInPlaceWithARealMtime() throws Exception {
        HostRoot host = new HostRoot(dir);
        Instant boot = Instant.now().minus(Duration.ofDays(1));
        host.boot("b-1", boot, 811);
        host.renderConfig("ghcr.io", new Credential("u", "old"), boot, boot);
        Object inode = Files.readAttributes(dir.resolve("etc/cri/conf.d/cri.toml"),
                java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        Instant before = Instant.now().minusSeconds(1);

        host.rewriteRegistryAuth("ghcr.io", new Credential("u", "new"));

        Path cri = dir.resolve("etc/cri/conf.d/cri.toml");
        assertEquals(inode, Files.readAttributes(cri, java.nio.file.attribute.BasicFileAttributes.class).fileKey());
        assertTrue(Files.readString(cri).contains("password = 'new'"));
        assertTrue(mtime("etc/cri/conf.d/cri.toml").isAfter(before));
        assertTrue(mtime("etc/cri/conf.d/01-registries.part").isAfter(before));
        assertEquals(boot, mtime("etc/cri/containerd.toml"));
    }

    /** containerd serves once it has loaded its config and bound its socket, not while it starts. */
    @Test
    void criContainerdServesOnlyOnceItHasBoundItsSocket() throws Exception {
        HostRoot host = new HostRoot(dir);
        Instant boot = Instant.now().minusSeconds(60);
        host.boot("b-1", boot, 811);
        host.startCriContainerd(1201, 600);
        ContainerdListener starting = UnixSocketTable.read(host.procRoot(), 1201, HostRoot.CONTAINERD_SOCKET);
        assertEquals(ContainerdListener.State.NOT_LISTENING, starting.state(), starting.detail());

        host.bindContainerdSocket(1201, boot.plusSeconds(6));
        assertTrue(UnixSocketTable.read(host.procRoot(), 1201, HostRoot.CONTAINERD_SOCKET).isListening());
        assertFalse(UnixSocketTable.read(host.procRoot(), 1201, "/system/run/containerd/containerd.sock").isListening());

        host.stopCriContainerd(1201);
        assertEquals(ContainerdListener.State.UNREADABLE,
                UnixSocketTable.read(host.procRoot(), 1201, HostRoot.CONTAINERD_SOCKET).state(), "gone with it");
    }

    @Test
    void aNewBootForgetsTheOldProcesses() throws Exception {
        HostRoot host = new HostRoot(dir);
        host.boot("b-1", Instant.now(), 811);
        host.startCriContainerd(1201, 600);
        host.boot("b-2", Instant.now(), 848);
        host.startCriContainerd(1238, 600);
        assertEquals(Set.of("1", "848", "1238", "sys", "uptime"), list(dir.resolve("proc")));
        host.stopCriContainerd(1238);
        assertFalse(Files.exists(dir.resolve("proc/1238")));
        assertEquals("b-2\n", Files.readString(dir.resolve("proc/sys/kernel/random/boot_id")));
    }

    private Instant mtime(String relative) throws Exception {
        return Files.getLastModifiedTime(dir.resolve(relative)).toInstant();
    }

    private static Set<String> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }
}
