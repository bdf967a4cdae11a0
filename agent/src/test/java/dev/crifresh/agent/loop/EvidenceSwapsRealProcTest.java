package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crifresh.agent.host.BootClockSampler;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
    private static final Path PROC = Path.of("/proc");
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
    private static final Duration SETTLE = Duration.ofMillis(300);

    @TempDir
    Path host;
    private TalosFiles files;
    private String marker;
    private final List<FakeContainerd> processes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        files = new TalosFiles(host);
        marker = "/tmp/crifresh-swap-" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        processes.forEach(FakeContainerd::close);
    }

    private Evaluator agent() {
        ContainerdMatcher matcher = ContainerdMatcher.parse(ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker);
        return new Evaluator(new HostReader(PROC, host, WatchGlobs.TALOS_DEFAULT, matcher, HostClock.system(PROC)),
                RuleSettings.defaults(), KEY);
    }

    private FakeContainerd containerdAfterTheFiles() throws Exception {
        waitPast(Instant.now().plus(SETTLE));
        List<String> argv = new ArrayList<>(FakeContainerd.TALOS_CRI);
        argv.addAll(List.of("--root", marker));
        FakeContainerd cri = FakeContainerd.start(argv);
        processes.add(cri);
        Instant boot = new BootClockSampler(HostClock.system(PROC), 5).sample().bootWallTime();
        waitPast(boot.plusMillis(cri.startTicks() * 10).plus(SETTLE));
        return cri;
    }

    private static void waitPast(Instant t) {
        Poll.until(Duration.ofSeconds(10), "wall clock past " + t, () -> Instant.now().isAfter(t));
    }

    private Path onHost(String nodePath) {
        return files.onHost(nodePath);
    }

    private void mv(String from, String to) throws IOException {
        Files.move(onHost(from), onHost(to));
    }

    private static String fingerprint(String password) {
        return CredentialFingerprint.of(KEY, new RegistryAuth("ghcr.io", "deploy-bot", password, ""));
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
        containerdAfterTheFiles();
        assertEquals(Verdict.FRESH, agent().evaluate().evaluation().verdict());

        // mv /etc /etc.old && mv /staged/etc /etc: /etc/cri and below keep every stamp they had.
        mv("/etc", "/etc.old");
        mv("/staged/etc", "/etc");
        var after = agent().evaluate();
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
        containerdAfterTheFiles();
        var before = agent().evaluate();
        assertEquals(Verdict.FRESH, before.evaluation().verdict(), before.evaluation().message());
        assertEquals(fingerprint("token-v1"), before.registries().get("ghcr.io"));

        mv("/srv/deploy", "/srv/old");
        mv("/srv/next", "/srv/deploy");
        var after = agent().evaluate();
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
        containerdAfterTheFiles();
        var before = agent().evaluate();
        assertEquals(Verdict.FRESH, before.evaluation().verdict(), before.evaluation().message());
        assertEquals(fingerprint("token-v1"), before.registries().get("ghcr.io"));

        renameExchange(onHost("/srv/app/current"), onHost("/srv/app/next"));
        var after = agent().evaluate();
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
        containerdAfterTheFiles();
        Evaluator watching = agent();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, watching.evaluate().evaluation().reason());

        files.write("/etc/passwd", "root:x:0:0::/root:/bin/bash\n", null);          // in place
        files.write("/etc/kubernetes/manifests/b.yaml", "b\n", null);                 // a new file in a sibling
        mv("/etc/kubernetes/manifests/b.yaml", "/etc/kubernetes/manifests/c.yaml"); // a rename in a sibling
        Files.createDirectories(onHost("/etc/kubernetes/pki"));                       // a new sibling subtree
        Evaluation untouched = agent().evaluate().evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, untouched.reason(), untouched.message());

        // sed -i /etc/hosts: a temporary file renamed over an entry of /etc itself.
        files.write("/etc/hosts.tmp", "127.0.0.1 localhost\n", null);
        mv("/etc/hosts.tmp", "/etc/hosts");
        assertStaleBecause(agent().evaluate().evaluation(), "ctime of directory /etc");
        assertEquals(Reason.CONFIG_UNCHANGED_SINCE_LOAD, watching.evaluate().evaluation().reason());

        processes.remove(0).close(); // a reboot, or containerd restarted
        containerdAfterTheFiles();
        Evaluation restarted = agent().evaluate().evaluation();
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
