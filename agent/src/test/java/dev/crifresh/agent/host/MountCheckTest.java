package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** containerd's mount table read as the kernel writes it, and which mounts count (pure). */
class MountCheckTest {
    /** A Talos-like table: the squashfs root, the /system tmpfs and Talos' shadow bind mounts under /etc. */
    private static final String TALOS = String.join("\n",
            "20 1 7:0 / / ro,relatime - squashfs /dev/loop0 ro",
            "21 20 0:22 / /system rw,relatime - tmpfs tmpfs rw",
            "30 20 0:22 /etc/cri/conf.d/cri.toml /etc/cri/conf.d/cri.toml ro - tmpfs tmpfs rw",
            "31 20 0:22 /etc/cri/conf.d/01-registries.part /etc/cri/conf.d/01-registries.part ro - tmpfs tmpfs rw",
            "32 20 0:22 /etc/cri/conf.d/hosts /etc/cri/conf.d/hosts ro - tmpfs tmpfs rw",
            "40 20 0:50 / /run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/rootfs rw - overlay overlay rw",
            "");
    private static final Set<String> EVIDENCE = Set.of("/etc", "/etc/cri", "/etc/cri/conf.d",
            "/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml", "/etc/cri/conf.d/01-registries.part");

    @Test
    void talosOwnMountsAndUnrelatedOnesAreExpected() throws IOException {
        assertEquals(List.of(), MountCheck.unexpected(MountTable.parse(TALOS), EVIDENCE, "/", Set.of()));
    }

    @Test
    void aBindMountOverAConfigPathOrADirectoryAboveIsNot() throws IOException {
        String table = TALOS + "50 20 8:1 /srv/old/conf.d /etc/cri/conf.d rw - ext4 /dev/sda1 rw\n"
                + "51 20 8:1 /backup/etc /etc rw - ext4 /dev/sda1 rw\n";
        List<String> problems = MountCheck.unexpected(MountTable.parse(table), EVIDENCE, "/", Set.of());
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).endsWith("mounted on /etc/cri/conf.d"), problems.get(0));
        assertTrue(problems.get(1).endsWith("mounted on /etc"), problems.get(1));
        // declared by the operator
        assertEquals(List.of(), MountCheck.unexpected(MountTable.parse(table), EVIDENCE, "/",
                Set.of("/etc", "/etc/cri/conf.d")));
    }

    @Test
    void aShadowLookalikeFromAnotherFileSystemIsNotTalos() throws IOException {
        // the same root path, but not the file system mounted at /system (an old root snapshot)
        String table = TALOS.replace("30 20 0:22 /etc/cri/conf.d/cri.toml", "30 20 8:3 /etc/cri/conf.d/cri.toml");
        assertEquals(1, MountCheck.unexpected(MountTable.parse(table), EVIDENCE, "/", Set.of()).size());
        // the same file system, another path in it
        String moved = TALOS.replace("30 20 0:22 /etc/cri/conf.d/cri.toml", "30 20 0:22 /old/cri.toml");
        assertEquals(1, MountCheck.unexpected(MountTable.parse(moved), EVIDENCE, "/", Set.of()).size());
    }

    @Test
    void aNodeRenderedUnderADirectoryIsMappedByItsPrefix() throws IOException {
        String table = "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
                + "2 1 8:1 /tmp/x/staged /tmp/x/node/etc/cri/conf.d rw - ext4 /dev/sda1 rw\n"
                + "3 1 8:1 /tmp/y /tmp/x/nodeother/etc rw - ext4 /dev/sda1 rw\n";
        assertEquals(List.of("a ext4 file system (/tmp/x/staged of /dev/sda1) is mounted on /etc/cri/conf.d"),
                MountCheck.unexpected(MountTable.parse(table), EVIDENCE, "/tmp/x/node", Set.of()));
    }

    @Test
    void escapesAreDecodedAndGarbageIsAnError() throws IOException {
        MountTable.Mount m = MountTable.parse("7 1 8:1 /a\\040b /etc/cri\\134x rw shared:1 - ext4 /dev/sda\\0111 rw")
                .get(0);
        assertEquals("/a b", m.root());
        assertEquals("/etc/cri\\x", m.mountPoint());
        assertEquals("/dev/sda\t1", m.source());
        assertThrows(IOException.class, () -> MountTable.parse("7 1 8:1 / /etc rw no-separator"));
    }
}
