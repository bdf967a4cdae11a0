package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.testing.UnixSockets;
import dev.crifresh.common.evidence.ContainerdSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading containerd's socket under a host root: real unix socket inodes, real mtimes and ctimes. */
class ContainerdSocketReaderTest {
    private static final String SOCK = "/run/containerd/containerd.sock";
    private static final List<String> CRI = List.of("/bin/containerd", "--address", SOCK,
            "--config", "/etc/cri/containerd.toml");

    @TempDir
    Path host;

    private ContainerdSocketReader reader(ChangeTimes times) {
        return new ContainerdSocketReader(new HostPaths(host), times);
    }

    private Path onHost(String nodePath) {
        return host.resolve(nodePath.substring(1));
    }

    @Test
    void aFreshlyBoundSocketCarriesTheKernelsStampsOfItsBind() throws Exception {
        Instant before = Instant.now();
        UnixSockets.bind(onHost(SOCK));
        Instant after = Instant.now();

        ContainerdSocket socket = reader(ChangeTimes.KERNEL).read(CRI);

        assertTrue(socket.usable(), String.valueOf(socket.problem()));
        assertEquals(SOCK, socket.path());
        // the kernel's coarse file clock may lag the precise one by a jiffy
        assertFalse(socket.mtime().isBefore(before.minusMillis(10)), socket.mtime() + " vs " + before);
        assertFalse(socket.mtime().isAfter(after), socket.mtime() + " vs " + after);
        assertEquals(socket.mtime(), socket.ctime());
    }

    @Test
    void aBackDatedSocketKeepsItsMtimeButTheKernelMovesItsCtime() throws Exception {
        // Threat model: inside (an ordinary `touch -d` on the socket); the ctime gives it away.
        Instant epochish = Instant.parse("1970-01-01T00:00:06Z");
        UnixSockets.bindStamped(onHost(SOCK), epochish);

        ContainerdSocket kernel = reader(ChangeTimes.KERNEL).read(CRI);
        assertEquals(epochish, kernel.mtime());
        assertTrue(kernel.ctime().isAfter(Instant.now().minusSeconds(60)), kernel.ctime().toString());

        ContainerdSocket simulated = reader(ChangeTimes.MTIME).read(CRI);
        assertEquals(epochish, simulated.ctime(), "a simulated host takes the mtime for the ctime");
    }

    @Test
    void theAddressIsReadAsContainerdReadsItsFlags() throws Exception {
        UnixSockets.bind(onHost("/run/cri/c.sock"));
        for (List<String> argv : List.of(
                List.of("/bin/containerd", "-a", "/run/cri/c.sock"),
                List.of("/bin/containerd", "--address=/run/cri/c.sock", "--config", "/etc/cri/containerd.toml"),
                List.of("/bin/containerd", "-address", "/run/cri/c.sock", "-a", "/run/cri/c.sock"))) {
            ContainerdSocket socket = reader(ChangeTimes.KERNEL).read(argv);
            assertTrue(socket.usable(), argv + ": " + socket.problem());
            assertEquals("/run/cri/c.sock", socket.path());
        }
    }

    @Test
    void withoutOneAddressOnTheCommandLineThereIsNoWitness() {
        assertNull(reader(ChangeTimes.KERNEL).read(List.of("/bin/containerd", "--config", "/etc/cri/containerd.toml")));
        assertNull(reader(ChangeTimes.KERNEL).read(List.of("/bin/containerd", "-a", "/run/a.sock", "-a", "/run/b.sock")));
        assertNull(reader(ChangeTimes.KERNEL).read(List.of("/bin/containerd", "--no-such-flag")));
    }

    @Test
    void anythingButASocketIsNoWitness() throws Exception {
        ContainerdSocket missing = reader(ChangeTimes.KERNEL).read(CRI);
        assertFalse(missing.usable());
        assertEquals("no such socket", missing.problem());

        Files.createDirectories(onHost(SOCK).getParent());
        Files.writeString(onHost(SOCK), "not a socket");
        Files.setLastModifiedTime(onHost(SOCK), FileTime.from(Instant.parse("1970-01-01T00:00:06Z")));
        ContainerdSocket file = reader(ChangeTimes.MTIME).read(CRI);
        assertFalse(file.usable());
        assertEquals("not a socket", file.problem());

        Files.delete(onHost(SOCK));
        Files.createDirectory(onHost(SOCK));
        assertEquals("not a socket", reader(ChangeTimes.KERNEL).read(CRI).problem());

        ContainerdSocket relative = reader(ChangeTimes.KERNEL).read(List.of("/bin/containerd", "-a", "run/c.sock"));
        assertEquals("not an absolute path", relative.problem());
    }

    @Test
    void aSymlinkOnThePathResolvesUnderTheHostRootNotTheAgentsRoot() throws Exception {
        UnixSockets.bind(onHost("/var/run-real/containerd/containerd.sock"));
        Files.createDirectories(onHost("/run"));
        Files.createSymbolicLink(onHost("/run/containerd"), Path.of("/var/run-real/containerd"));

        ContainerdSocket socket = reader(ChangeTimes.KERNEL).read(CRI);

        assertTrue(socket.usable(), String.valueOf(socket.problem()));
    }
}
