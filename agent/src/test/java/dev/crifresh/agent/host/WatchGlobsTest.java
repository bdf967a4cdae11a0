package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatchGlobsTest {
    @TempDir
    Path host;

    @Test
    void expandsTheTalosSetUnderTheHostRootInGlobOrder() throws Exception {
        Path confd = Files.createDirectories(host.resolve("etc/cri/conf.d"));
        Files.writeString(host.resolve("etc/cri/containerd.toml"), "a");
        Files.writeString(confd.resolve("cri.toml"), "b");
        Files.writeString(confd.resolve("20-other.part"), "c");
        Files.writeString(confd.resolve("01-registries.part"), "d");
        Files.writeString(confd.resolve("notes.txt"), "e");
        Files.createDirectory(confd.resolve("dir.part"));
        WatchGlobs globs = new WatchGlobs(host, WatchGlobs.TALOS_DEFAULT);
        WatchGlobs.Expansion e = globs.expand();
        // A matching directory is part of the set (and reads as unreadable), as a literal path would be.
        assertEquals(List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml",
                "/etc/cri/conf.d/01-registries.part", "/etc/cri/conf.d/20-other.part", "/etc/cri/conf.d/dir.part"),
                e.paths());
        assertTrue(e.unlistable().isEmpty());
        assertEquals(host.resolve("etc/cri/conf.d/cri.toml"), globs.onHost("/etc/cri/conf.d/cri.toml"));
        assertEquals(Set.of("/etc/cri", "/etc/cri/conf.d"), globs.directories());
    }

    @Test
    void literalPathsStayEvenWhenMissingWildcardsMayMatchNothing() {
        WatchGlobs.Expansion e = new WatchGlobs(host, WatchGlobs.TALOS_DEFAULT).expand();
        assertEquals(List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml"), e.paths());
    }

    @Test
    void matchesWatchedNamesPerDirectory() {
        WatchGlobs globs = new WatchGlobs(host, WatchGlobs.TALOS_DEFAULT);
        assertTrue(globs.matches("/etc/cri/conf.d", "01-registries.part"));
        assertTrue(globs.matches("/etc/cri/conf.d", "cri.toml"));
        assertTrue(globs.matches("/etc/cri", "containerd.toml"));
        assertFalse(globs.matches("/etc/cri", "cri.toml"));
        assertFalse(globs.matches("/etc/cri/conf.d", "cri.toml.tmp"));
        assertFalse(globs.matches("/etc/cri/conf.d", ".01-registries.part.swp"));
    }

    @Test
    void rejectsGlobsThatCannotBeWatched() {
        for (String bad : List.of("etc/cri/x.toml", "/etc/*/x.toml", "/etc/cri/", "/etc/../x", "/etc//x")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WatchGlobs.validate(bad));
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }
}
