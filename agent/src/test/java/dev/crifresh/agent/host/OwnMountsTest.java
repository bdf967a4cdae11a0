package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.WatchedFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent in its pod sees the node through hostPath mounts below {@code /host}; the directories above
 * them are the container's, made by the runtime at every pod start. Their stamps must not count, or every
 * node would be stale after every boot (the agent's pod always starts after containerd). Liveness, not
 * the threat model: nothing here is an attack.
 */
class OwnMountsTest {
    private static final List<String> POD = List.of(
            "22 1 0:21 / / rw,relatime - overlay overlay rw",
            "23 22 0:22 / /proc rw,nosuid - proc proc rw",
            "24 22 8:1 /etc/cri /host/etc/cri ro,relatime - tmpfs tmpfs ro",
            "25 22 8:1 /run/containerd /host/run/containerd ro,relatime - tmpfs tmpfs ro",
            "26 22 8:1 /x /host/odd\\040name ro - tmpfs tmpfs ro",
            "27 22 8:1 /y /hostile rw - tmpfs tmpfs rw");

    @Test
    void theMountsBelowTheHostRootAreTheNodesVolumes() {
        assertEquals(List.of("/etc/cri", "/run/containerd", "/odd name"), OwnMounts.under("/host", POD));
    }

    @Test
    void aHostRootThatIsSlashOrItselfAMountIsAllTheNodes() {
        assertEquals(List.of(), OwnMounts.under("/", POD));
        assertEquals(List.of(), OwnMounts.under("/host/etc/cri", POD));
        assertEquals(List.of(), OwnMounts.under("/srv/node", POD));
    }

    @Test
    void onlyDirectoriesAtOrBelowAVolumeShowTheNode() {
        HostPaths paths = new HostPaths(Path.of("/host"), List.of("/etc/cri"));
        assertFalse(paths.showsNode("/etc"));
        assertFalse(paths.showsNode("/etc/cri-old"));
        assertTrue(paths.showsNode("/etc/cri"));
        assertTrue(paths.showsNode("/etc/cri/conf.d"));
        assertTrue(new HostPaths(Path.of("/host"), List.of()).showsNode("/etc"));
    }

    @Test
    void aDirectoryTheContainerMadeAboveAVolumeMovesNoStampOfTheFile(@TempDir Path root) throws Exception {
        Path conf = Files.createDirectories(root.resolve("etc/cri/conf.d"));
        Path file = Files.writeString(conf.resolve("cri.toml"), "version = 2\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
        // a mount target made in etc moves its ctime; repeated until the kernel's coarse clock stamps it later
        Instant fileCtime = ChangeTimes.KERNEL.ctime(file);
        Path target = root.resolve("etc/mount-target");
        for (int i = 0; !ChangeTimes.KERNEL.ctime(root.resolve("etc")).isAfter(fileCtime); i++) {
            assertTrue(i < 1_000_000, "the ctime of etc never passed the file's");
            Files.deleteIfExists(target);
            Files.createDirectory(target);
        }
        ConfigFileReader reader = new ConfigFileReader(1 << 20);

        HostPaths asPod = new HostPaths(root, List.of("/etc/cri"));
        WatchedFile inPod = reader.read(asPod, asPod.resolve("/etc/cri/conf.d/cri.toml"), ChangeTimes.KERNEL).file();
        assertFalse(inPod.changedBy().contains("directory /etc "), inPod.changedBy());
        assertFalse(inPod.changedBy().equals("ctime of directory /etc"), inPod.changedBy());

        HostPaths asNode = new HostPaths(root, List.of());
        WatchedFile onNode = reader.read(asNode, asNode.resolve("/etc/cri/conf.d/cri.toml"), ChangeTimes.KERNEL).file();
        assertTrue(onNode.changedBy().startsWith("ctime of directory "), onNode.changedBy());
        assertFalse(onNode.changedAt().isBefore(inPod.changedAt()));
    }
}
