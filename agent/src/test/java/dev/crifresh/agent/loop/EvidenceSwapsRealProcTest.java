package dev.crifresh.agent.loop;

import static dev.crifresh.agent.testing.RealNode.fingerprint;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crifresh.agent.testing.RealNode;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trees swapped by renames, which move no stamp on the config files, their symlinks or their own
 * directories: only the directory renamed into place gets a new ctime. Real files, real renames (and
 * one real {@code renameat2(RENAME_EXCHANGE)}), a real stand-in containerd read through the real
 * {@code /proc}. Every replacement tree is prepared before containerd starts, so all of its own stamps
 * are genuinely older than containerd. Each case is evaluated by a new agent (no memory): what an agent
 * sees after its pod restarted, or {@code observe} sees.
 *
 * <p>Threat model: all of these are ordinary tools (mv, ln, an "atomic deploy" flip) on the defended
 * side of the line.
 */
class EvidenceSwapsRealProcTest {
    @TempDir
    Path host;
    private RealNode node;
    private TalosFiles files;

    @BeforeEach
    void setUp() {
        node = new RealNode(host, "swap");
        files = node.files();
    }

    @AfterEach
    void tearDown() {
        node.close();
    }

    private Path onHost(String nodePath) {
        return files.onHost(nodePath);
    }

    private void mv(String from, String to) throws IOException {
        Files.move(onHost(from), onHost(to));
    }

    private static void assertStaleBecause(Evaluation e, String stamp) {
        assertNotEquals(Verdict.FRESH, e.verdict(), e.message());
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, e.reason(), e.message());
        assertTrue(e.message().contains(stamp), e.message());
    }

    /** The Talos files with {@code password}, rendered under {@code root} (a node path) instead of /. */
    private void talosTreeUnder(String root, String password) throws IOException {
        TalosFiles under = new TalosFiles(onHost(root));
        under.writeAll(password, null);
    }

    @Test
    void theDirectoryAboveTheConfigSwappedByRenamesIsStale() throws Exception {
        files.writeAll("token-v1", null);
        talosTreeUnder("/staged", "token-v2"); // /staged/etc/cri/... prepared long before
        node.containerdAfterTheFiles();
        assertEquals(Verdict.FRESH, node.agent().evaluate().evaluation().verdict());

        // mv /etc /etc.old && mv /staged/etc /etc: /etc/cri and below keep every stamp they had.
        mv("/etc", "/etc.old");
        mv("/staged/etc", "/etc");
        var after = node.agent().evaluate();
        assertEquals(fingerprint("token-v2"), after.registries().get("ghcr.io"));
        assertStaleBecause(after.evaluation(), "ctime of directory /etc");
    }

    @Test
    void aSymlinkedConfigIntoADeployTreeWhoseParentIsSwappedIsStale() throws Exception {
        // conf.d/cri.toml -> /srv/deploy/current/cri.toml; the next release is staged as a whole tree.
        files.writeAll("token-v1", null);
        files.write("/srv/deploy/current/cri.toml", TalosFiles.criToml("token-v1"), null);
        files.write("/srv/next/current/cri.toml", TalosFiles.criToml("token-v2"), null);
        Files.delete(onHost(TalosFiles.CRI_TOML));
        Files.createSymbolicLink(onHost(TalosFiles.CRI_TOML), Path.of("/srv/deploy/current/cri.toml"));
        node.containerdAfterTheFiles();
        var before = node.agent().evaluate();
        assertEquals(Verdict.FRESH, before.evaluation().verdict(), before.evaluation().message());
        assertEquals(fingerprint("token-v1"), before.registries().get("ghcr.io"));

        mv("/srv/deploy", "/srv/old");
        mv("/srv/next", "/srv/deploy");
        var after = node.agent().evaluate();
        assertEquals(fingerprint("token-v2"), after.registries().get("ghcr.io"));
        assertStaleBecause(after.evaluation(), "ctime of directory /srv");
    }

    @Test
    void aSymlinkedConfDirectoryFlippedByOneRenameExchangeIsStale() throws Exception {
        assumeTrue(python3(), "python3 is not installed: renameat2(RENAME_EXCHANGE) cannot be called from"
                + " this JVM without it, so the exchange case is skipped (the rename cases cover the same stamp)");
        // conf.d -> /srv/app/current/conf.d; `current` and `next` are swapped in one atomic step.
        files.write(TalosFiles.CONTAINERD_TOML, TalosFiles.containerdToml(), null);
        files.write("/srv/app/current/conf.d/cri.toml", TalosFiles.criToml("token-v1"), null);
        files.write("/srv/app/current/conf.d/01-registries.part", TalosFiles.registriesPart("token-v1"), null);
        files.write("/srv/app/next/conf.d/cri.toml", TalosFiles.criToml("token-v2"), null);
        files.write("/srv/app/next/conf.d/01-registries.part", TalosFiles.registriesPart("token-v2"), null);
        Files.createSymbolicLink(onHost("/etc/cri/conf.d"), Path.of("/srv/app/current/conf.d"));
        node.containerdAfterTheFiles();
        var before = node.agent().evaluate();
        assertEquals(Verdict.FRESH, before.evaluation().verdict(), before.evaluation().message());
        assertEquals(fingerprint("token-v1"), before.registries().get("ghcr.io"));

        renameExchange(onHost("/srv/app/current"), onHost("/srv/app/next"));
        var after = node.agent().evaluate();
        assertEquals(fingerprint("token-v2"), after.registries().get("ghcr.io"));
        assertNotEquals(Verdict.FRESH, after.evaluation().verdict(), after.evaluation().message());
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, after.evaluation().reason());
    }

    /**
     * Liveness on a generic host: writes into existing files of /etc and anything inside its other
     * subdirectories move no stamp on the path to the config; an entry created directly in /etc moves
     * /etc's ctime, which a new agent cannot tell from a swap (stale), an agent that watched all along
     * proves fresh by content, and a containerd restarted after it is fresh again.
     */
    @Test
    void unrelatedWritesInEtcKeepANodeFreshOrStaleOnlyUntilRestart() throws Exception {
        files.writeAll("token-v1", null);
        files.write("/etc/passwd", "root:x:0:0::/root:/bin/sh\n", null);
        files.write("/etc/kubernetes/manifests/a.yaml", "a\n", null);
        node.containerdAfterTheFiles();
        Evaluator watching = node.agent();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, watching.evaluate().evaluation().reason());

        files.write("/etc/passwd", "root:x:0:0::/root:/bin/bash\n", null);          // in place
        files.write("/etc/kubernetes/manifests/b.yaml", "b\n", null);                 // a new file in a sibling
        mv("/etc/kubernetes/manifests/b.yaml", "/etc/kubernetes/manifests/c.yaml"); // a rename in a sibling
        Files.createDirectories(onHost("/etc/kubernetes/pki"));                       // a new sibling subtree
        Evaluation untouched = node.agent().evaluate().evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, untouched.reason(), untouched.message());

        // sed -i /etc/hosts: a temporary file renamed over an entry of /etc itself.
        files.write("/etc/hosts.tmp", "127.0.0.1 localhost\n", null);
        mv("/etc/hosts.tmp", "/etc/hosts");
        assertStaleBecause(node.agent().evaluate().evaluation(), "ctime of directory /etc");
        assertEquals(Reason.CONFIG_UNCHANGED_SINCE_LOAD, watching.evaluate().evaluation().reason());

        node.stopOldest(); // a reboot, or containerd restarted
        node.containerdAfterTheFiles();
        Evaluation restarted = node.agent().evaluate().evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, restarted.reason(), restarted.message());
    }

    private static boolean python3() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import ctypes").redirectErrorStream(true).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)} through glibc, from python3's ctypes. */
    private static void renameExchange(Path a, Path b) throws Exception {
        String script = """
                import ctypes, os, sys
                libc = ctypes.CDLL(None, use_errno=True)
                AT_FDCWD, RENAME_EXCHANGE = -100, 2
                if libc.renameat2(AT_FDCWD, sys.argv[1].encode(), AT_FDCWD, sys.argv[2].encode(), RENAME_EXCHANGE) != 0:
                    e = ctypes.get_errno()
                    sys.exit("renameat2: " + os.strerror(e))
                """;
        Process p = new ProcessBuilder("python3", "-c", script, a.toString(), b.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "renameat2 failed: " + out);
    }
}
