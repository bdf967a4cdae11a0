package dev.crifresh.agent.loop;

import static dev.crifresh.agent.testing.RealNode.fingerprint;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.RealNode;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trees mounted on the way to the config: a mount moves no stamp at all, so the agent reads
 * containerd's own mount table ({@code /proc/<pid>/mountinfo}) and treats a mount point on a config
 * path, or on a directory above one, that the platform does not create as unknown. The stand-in
 * containerd runs in its own private mount namespace ({@code unshare --mount}); mounts are added to it
 * with {@code nsenter}, so they are seen by that process alone, as on a node where the agent's
 * host-path mount does not propagate them. The agent reads the files through the process's own root
 * ({@code /proc/<pid>/root}), so it reads exactly what containerd would.
 *
 * <p>Threat model: bind-mounting a prepared tree is an operator's ordinary tool, on the defended side.
 */
class EvidenceMountsRealProcTest {

    @TempDir
    Path tmp;
    private Path host;
    private RealNode node;
    private TalosFiles files;

    @BeforeAll
    static void needsMountNamespaces() throws Exception {
        String why = null;
        if (!Files.readString(Path.of("/proc/self/status")).matches("(?s).*\\nUid:\\s+0\\s.*")) {
            why = "not root";
        } else if (run(List.of("unshare", "--mount", "--propagation", "private", "true")) != 0) {
            why = "unshare --mount fails here (no mount namespaces)";
        }
        if (why != null) {
            if ("true".equals(System.getenv("CI"))) {
                fail(why + ": the bind-mount cases must run on CI");
            }
            assumeTrue(false, why + ": the bind-mount cases need a private mount namespace and are skipped");
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        host = tmp.toRealPath().resolve("node");
        Files.createDirectories(host);
        node = new RealNode(host, "mount");
        files = node.files();
    }

    @AfterEach
    void tearDown() {
        node.close();
    }

    private Evaluator agent(Set<String> expectedMounts) {
        return node.agent(new MountPolicy(true, expectedMounts, host.toString()));
    }

    private Evaluator agent() {
        return agent(Set.of());
    }

    /** containerd in its own mount namespace, after {@code setup} ran there; then time passes. */
    private FakeContainerd containerd(String setup) throws Exception {
        return node.containerdAfterTheFiles(() -> FakeContainerd.startInMountNamespace(node.talosCri(), setup));
    }

    /** {@code mount} run inside containerd's mount namespace. */
    private static void mountIn(FakeContainerd cri, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("nsenter", "--mount", "--target", Long.toString(cri.pid()),
                "mount"));
        command.addAll(List.of(args));
        assertEquals(0, run(command), "mount " + String.join(" ", args));
    }

    private static int run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    private String onHost(String nodePath) {
        return files.onHost(nodePath).toString();
    }

    private static void assertMounted(Evaluation e, String mountPoint) {
        assertEquals(Verdict.UNKNOWN, e.verdict(), e.message());
        assertEquals(Reason.CONFIG_PATH_MOUNTED, e.reason(), e.message());
        assertTrue(e.message().contains("mounted on " + mountPoint), e.message());
    }

    @Test
    void aPreparedTreeBindMountedOverConfDIsUnknown() throws Exception {
        files.writeAll("token-v1", null);
        new TalosFiles(files.onHost("/staged")).writeAll("token-v2", null); // every stamp older than containerd
        FakeContainerd cri = containerd("true");
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, agent().evaluate().evaluation().reason());

        mountIn(cri, "--bind", onHost("/staged/etc/cri/conf.d"), onHost("/etc/cri/conf.d"));
        var after = agent().evaluate();
        // What containerd would read now (through its own root): the prepared credential, old stamps only.
        assertEquals(fingerprint("token-v2"), after.registries().get("ghcr.io"));
        assertMounted(after.evaluation(), "/etc/cri/conf.d");
    }

    @Test
    void aPreparedFileBindMountedOverCriTomlOrATreeOverEtcIsUnknown() throws Exception {
        files.writeAll("token-v1", null);
        new TalosFiles(files.onHost("/staged")).writeAll("token-v2", null);
        FakeContainerd cri = containerd("true");
        mountIn(cri, "--bind", onHost("/staged" + TalosFiles.CRI_TOML), onHost(TalosFiles.CRI_TOML));
        assertMounted(agent().evaluate().evaluation(), TalosFiles.CRI_TOML);

        node.stop(cri);
        containerd("mount --bind " + onHost("/staged/etc") + " " + onHost("/etc"));
        assertMounted(agent().evaluate().evaluation(), "/etc");
    }

    @Test
    void talosShadowBindMountsAndUnrelatedMountsAreExpected() throws Exception {
        // Talos writes /system/etc/<file> on the /system tmpfs and bind-mounts it onto /etc/<file>.
        files.write(TalosFiles.CONTAINERD_TOML, TalosFiles.containerdToml(), null);
        Files.createDirectories(files.onHost("/system"));
        Files.createDirectories(files.onHost("/etc/cri/conf.d/hosts"));
        Files.createDirectories(files.onHost("/staged/hosts"));
        files.write(TalosFiles.CRI_TOML, "", null);
        files.write(TalosFiles.REGISTRIES_PART, "", null);
        files.write("/staged/shadow/cri.toml", TalosFiles.criToml("token-v1"), null);
        files.write("/staged/shadow/01-registries.part", TalosFiles.registriesPart("token-v1"), null);
        String shadow = onHost("/system/etc/cri/conf.d");
        // The platform's mounts are made first (a namespace held by a plain process), containerd later.
        Process holder = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "bash", "-c",
                String.join("\n", "set -e",
                        "mount -t tmpfs tmpfs " + onHost("/system"),
                        "mkdir -p " + shadow,
                        "cp " + onHost("/staged/shadow/cri.toml") + " " + onHost("/staged/shadow/01-registries.part")
                                + " " + shadow,
                        "mount --bind -o ro " + shadow + "/cri.toml " + onHost(TalosFiles.CRI_TOML),
                        "mount --bind -o ro " + shadow + "/01-registries.part " + onHost(TalosFiles.REGISTRIES_PART),
                        // not on the way to any evidence: Talos' hosts directory
                        "mount --bind " + onHost("/staged/hosts") + " " + onHost("/etc/cri/conf.d/hosts"),
                        "exec sleep infinity"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            Path holderCmdline = Path.of("/proc", Long.toString(holder.pid()), "cmdline");
            Poll.until(Duration.ofSeconds(10), "the platform's mounts", () -> {
                try {
                    return Files.readString(holderCmdline).startsWith("sleep");
                } catch (IOException e) {
                    return false;
                }
            });
            talosCase(holder.pid(), shadow);
        } finally {
            holder.destroyForcibly();
        }
    }

    private void talosCase(long holder, String shadow) throws Exception {
        FakeContainerd cri = node.containerdAfterTheFiles(() -> FakeContainerd.startInMountNamespaceOf(holder, node.talosCri()));
        var fresh = agent().evaluate();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, fresh.evaluation().reason(), fresh.evaluation().message());
        assertEquals(fingerprint("token-v1"), fresh.registries().get("ghcr.io"));

        // Talos rotates the credential by writing the shadow file in place: stale, by its ctime.
        Path shadowCri = Path.of("/proc", Long.toString(cri.pid()), "root", shadow.substring(1), "cri.toml");
        Files.writeString(shadowCri, TalosFiles.criToml("token-v2"), StandardCharsets.UTF_8);
        var rotated = agent().evaluate();
        assertEquals(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, rotated.evaluation().reason(),
                rotated.evaluation().message());
        assertEquals(fingerprint("token-v2"), rotated.registries().get("ghcr.io"));
    }

    @Test
    void aMountTheOperatorDeclaresIsExpected() throws Exception {
        // /etc/cri bind-mounted from elsewhere before containerd started (a test harness's layout).
        new TalosFiles(files.onHost("/elsewhere")).writeAll("token-v1", null);
        Files.createDirectories(files.onHost("/etc/cri"));
        containerd("mount --bind " + onHost("/elsewhere/etc/cri") + " " + onHost("/etc/cri"));
        assertMounted(agent().evaluate().evaluation(), "/etc/cri");
        Evaluation declared = agent(Set.of("/etc/cri")).evaluate().evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, declared.reason(), declared.message());
    }
}
