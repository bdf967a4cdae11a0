package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Symlinks resolved under the host root, never in the agent's own file system; containerd's import closure. */
class HostPathsTest {
    @TempDir
    Path host;

    @Test
    void anAbsoluteSymlinkResolvesUnderTheHostRoot() throws Exception {
        Files.createDirectories(host.resolve("etc/cri/conf.d"));
        Files.createDirectories(host.resolve("var/cri"));
        Files.writeString(host.resolve("var/cri/real.toml"), "x");
        Files.createSymbolicLink(host.resolve("etc/cri/conf.d/cri.toml"), Path.of("/var/cri/real.toml"));
        Files.createSymbolicLink(host.resolve("etc/cri/link"), Path.of("conf.d"));
        HostPaths paths = new HostPaths(host);
        HostPaths.Resolved r = paths.resolve("/etc/cri/link/cri.toml");
        assertNull(r.error());
        assertEquals("/var/cri/real.toml", r.realPath());
        assertEquals(List.of("/etc/cri/link", "/etc/cri/conf.d/cri.toml"), r.symlinks());
        // .. never climbs above the host root.
        Files.createSymbolicLink(host.resolve("etc/cri/up"), Path.of("../../../../../var/cri/real.toml"));
        assertEquals("/var/cri/real.toml", paths.resolve("/etc/cri/up").realPath());
    }

    @Test
    void loopsAndFilesUsedAsDirectoriesAreErrors() throws Exception {
        Files.createDirectories(host.resolve("etc"));
        Files.createSymbolicLink(host.resolve("etc/a"), Path.of("b"));
        Files.createSymbolicLink(host.resolve("etc/b"), Path.of("/etc/a"));
        HostPaths paths = new HostPaths(host);
        assertTrue(paths.resolve("/etc/a").error().contains("too many levels"), paths.resolve("/etc/a").error());
        Files.writeString(host.resolve("etc/file"), "x");
        assertTrue(paths.resolve("/etc/file/x.toml").error().contains("not a directory"));
        assertNull(paths.resolve("/etc/missing/x.toml").error(), "a missing path is left to the read");
    }

    @Test
    void importsResolveLikeContainerd() throws Exception {
        Files.createDirectories(host.resolve("etc/cri/conf.d"));
        Files.writeString(host.resolve("etc/cri/conf.d/b.toml"), "");
        Files.writeString(host.resolve("etc/cri/conf.d/a.toml"), "");
        Files.writeString(host.resolve("etc/cri/conf.d/c?.toml"), "");
        Map<String, String> watched = new java.util.LinkedHashMap<>();
        watched.put("/etc/cri/main.toml", "version = 3\nimports = ['conf.d/*.toml', './conf.d/../conf.d/c?.toml']\n");
        watched.put("/etc/cri/conf.d/a.toml", "version = 3\nimports = ['/etc/cri/main.toml']\n"); // a cycle
        watched.put("/etc/cri/conf.d/b.toml", "version = 3\n");
        watched.put("/etc/cri/conf.d/c?.toml", "version = 3\n");
        ContainerdImports.Closure c = new ContainerdImports(new HostPaths(host)).resolve("/etc/cri/main.toml", watched);
        // Breadth first, glob matches sorted; '?' without '*' is a literal name.
        assertEquals(List.of("/etc/cri/main.toml", "/etc/cri/conf.d/a.toml", "/etc/cri/conf.d/b.toml",
                "/etc/cri/conf.d/c?.toml"), c.loaded());
        assertEquals(List.of(), c.unwatched());
        assertTrue(c.directories().contains("/etc/cri/conf.d"));

        watched.remove("/etc/cri/conf.d/b.toml");
        assertEquals(List.of("/etc/cri/conf.d/b.toml"), new ContainerdImports(new HostPaths(host))
                .resolve("/etc/cri/main.toml", watched).unwatched());
        watched.put("/etc/cri/main.toml", "version = 3\nimports = ['conf.d/[*.toml']\n");
        assertTrue(new ContainerdImports(new HostPaths(host)).resolve("/etc/cri/main.toml", watched).unwatched()
                .get(0).contains("cannot be resolved"));
    }
}
