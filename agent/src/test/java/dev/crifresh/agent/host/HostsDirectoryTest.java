package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.PullCredentials;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hosts.toml tree read from real files under a host root, and the stamps the poll compares. */
class HostsDirectoryTest {
    @TempDir
    Path host;

    @Test
    void readsWhatContainerdWouldFindAndRemembersWhereItLooked() throws Exception {
        Path root = Files.createDirectories(host.resolve("etc/cri/conf.d/hosts"));
        Files.createDirectories(root.resolve("127.0.0.1_5000_"));
        Files.writeString(root.resolve("127.0.0.1_5000_/hosts.toml"), "server = \"http://a:5000\"\n");
        Files.createDirectories(root.resolve("certs-only"));
        Files.writeString(root.resolve("a-file"), "x");
        HostsDirectory dir = new HostsDirectory(new HostPaths(host));

        assertEquals(new PullCredentials.Found("server = \"http://a:5000\"\n"),
                dir.at("/etc/cri/conf.d/hosts/127.0.0.1_5000_"));
        assertEquals(new PullCredentials.Found(null), dir.at("/etc/cri/conf.d/hosts/certs-only"));
        assertEquals(new PullCredentials.Missing(), dir.at("/etc/cri/conf.d/hosts/_default"));
        assertInstanceOf(PullCredentials.Unreadable.class, dir.at("/etc/cri/conf.d/hosts/a-file"));
        assertEquals(List.of("127.0.0.1_5000_", "certs-only"), dir.directories("/etc/cri/conf.d/hosts"));
        assertEquals(Set.of("/etc/cri/conf.d/hosts", "/etc/cri/conf.d/hosts/127.0.0.1_5000_",
                "/etc/cri/conf.d/hosts/certs-only", "/etc/cri/conf.d/hosts/_default", "/etc/cri/conf.d/hosts/a-file"),
                dir.consulted());
    }

    /**
     * A certificate file as containerd's {@code os.ReadFile} finds it: a file (through a symlink resolved under the
     * host root), nothing, a dangling link, a directory; its directory is consulted, so its creation is seen.
     */
    @Test
    void certificateFilesAreFoundAsContainerdReadsThem() throws Exception {
        Path d = Files.createDirectories(host.resolve("etc/cri/conf.d/hosts/ghcr.io"));
        Files.writeString(d.resolve("ca.crt"), "pem");
        Files.createDirectories(host.resolve("etc/ssl"));
        Files.writeString(host.resolve("etc/ssl/real.pem"), "pem");
        Files.createSymbolicLink(d.resolve("linked.crt"), Path.of("/etc/ssl/real.pem"));
        Files.createSymbolicLink(d.resolve("dangling.crt"), Path.of("/etc/ssl/gone.pem"));
        HostsDirectory dir = new HostsDirectory(new HostPaths(host));

        assertEquals(new PullCredentials.RegularFile(), dir.file("/etc/cri/conf.d/hosts/ghcr.io/ca.crt"));
        assertEquals(new PullCredentials.RegularFile(), dir.file("/etc/cri/conf.d/hosts/ghcr.io/linked.crt"));
        assertEquals(new PullCredentials.NoFile("does not exist"), dir.file("/etc/cri/conf.d/hosts/ghcr.io/none.crt"));
        assertEquals(new PullCredentials.NoFile("does not exist (a symbolic link to nothing)"),
                dir.file("/etc/cri/conf.d/hosts/ghcr.io/dangling.crt"));
        assertEquals(new PullCredentials.NoFile("is a directory"), dir.file("/etc/cri/conf.d/hosts/ghcr.io"));
        assertEquals(new PullCredentials.NoFile("does not exist"), dir.file("/opt/none/ca.crt"));
        assertTrue(dir.consulted().containsAll(Set.of("/etc/cri/conf.d/hosts/ghcr.io", "/opt/none")),
                dir.consulted().toString());
    }

    /** containerd would follow the link on the node; the agent, reading in its own filesystem, does not guess. */
    @Test
    void aSymlinkedHostsTomlIsUnreadable() throws Exception {
        Path d = Files.createDirectories(host.resolve("etc/cri/conf.d/hosts/ghcr.io"));
        Files.writeString(host.resolve("mirror.toml"), "server = \"https://mirror.local\"\n");
        Files.createSymbolicLink(d.resolve("hosts.toml"), Path.of("/mirror.toml"));
        HostsDirectory dir = new HostsDirectory(new HostPaths(host));

        PullCredentials.HostDir found = dir.at("/etc/cri/conf.d/hosts/ghcr.io");
        assertEquals(new PullCredentials.Unreadable("hosts.toml is a symbolic link: the agent does not follow it"), found);
    }

    /** A root that cannot be listed would hide the hosts only its directories name: not an empty list. */
    @Test
    void aRootThatCannotBeListedIsNotEmpty() throws Exception {
        Path conf = Files.createDirectories(host.resolve("etc/cri/conf.d"));
        Files.createSymbolicLink(conf.resolve("hosts"), Path.of("/etc/cri/conf.d/hosts")); // a loop
        HostsDirectory dir = new HostsDirectory(new HostPaths(host));

        assertThrows(UncheckedIOException.class, () -> dir.directories("/etc/cri/conf.d/hosts"));
    }

    @Test
    void anInPlaceRewriteAndAnMvBothMoveTheStamps() throws Exception {
        Path d = Files.createDirectories(host.resolve("etc/cri/conf.d/hosts/ghcr.io"));
        Files.writeString(d.resolve("hosts.toml"), "server = \"https://ghcr.io\"\n");
        HostsDirectory dir = new HostsDirectory(new HostPaths(host));
        dir.at("/etc/cri/conf.d/hosts/ghcr.io");
        Map<String, String> before = dir.stamps(ChangeTimes.KERNEL);
        assertTrue(before.containsKey("hosts /etc/cri/conf.d/hosts/ghcr.io/hosts.toml"), before.toString());

        Files.writeString(d.resolve("hosts.toml"), "server = \"https://mirror.local\"\n");
        Map<String, String> rewritten = dir.stamps(ChangeTimes.KERNEL);
        assertNotEquals(before, rewritten);

        Path staged = Files.writeString(host.resolve("staged"), "server = \"https://ghcr.io\"\n");
        Files.move(staged, d.resolve("hosts.toml"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertNotEquals(rewritten, dir.stamps(ChangeTimes.KERNEL));
    }
}
