package dev.crifresh.agent.loop;

import static dev.crifresh.agent.testing.RealNode.SETTLE;
import static dev.crifresh.agent.testing.RealNode.fingerprint;
import static dev.crifresh.agent.testing.RealNode.realStart;
import static dev.crifresh.agent.testing.RealNode.waitPast;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.RealNode;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.registry.ContainerdReading;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: every way found to make the agent say "fresh" while containerd still holds the old
 * credential, on real kernel data — a real stand-in containerd read through the real {@code /proc},
 * real files whose mtimes are set back as {@code touch -d} does, real renames, symlinks and deletions.
 * Each attack is evaluated by a new {@link Evaluator} (no memory): what an agent sees after its pod
 * restarted, or {@code observe} sees. The honest Talos order (files rendered, then containerd started)
 * must stay fresh.
 */
class EvidenceAttacksRealProcTest {
    @TempDir
    Path host;
    private RealNode node;
    private TalosFiles files;

    @BeforeEach
    void setUp() {
        node = new RealNode(host, "attack");
        files = node.files();
    }

    @AfterEach
    void tearDown() {
        node.close();
    }

    private Evaluation evaluate() {
        return node.agent().evaluate().evaluation();
    }

    private FakeContainerd start(List<String> argv) throws Exception {
        return start(argv, null);
    }

    private FakeContainerd start(List<String> argv, String comm) throws Exception {
        return node.track(FakeContainerd.start(node.withMarker(argv), comm));
    }

    /** The honest Talos order: the config is rendered, some time passes, then containerd starts. */
    private FakeContainerd honestBoot() throws Exception {
        files.writeAll("token-v1", null);
        return node.containerdAfterTheFiles();
    }

    /** {@code touch -d @<t>}: sets the mtime; the kernel sets the ctime to now. */
    private void touchBack(String nodePath, Instant t) throws Exception {
        Files.setLastModifiedTime(files.onHost(nodePath), FileTime.from(t));
    }

    private static void assertNotFresh(Evaluation e, Reason expected) {
        assertNotEquals(Verdict.FRESH, e.verdict(), e.message());
        assertEquals(expected, e.reason(), e.message());
    }

    @Test
    void anHonestTalosTreeStaysFreshForANewAgent() throws Exception {
        FakeContainerd cri = honestBoot();
        Evaluation e = evaluate();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, e.reason(), e.message());
        assertEquals(cri.pid(), e.containerd().pid());
        // Talos rewrites identical content in place later on: a new agent cannot prove it, one that
        // watched all along proves it by content (rule 4).
        Evaluator watching = node.agent(WatchGlobs.TALOS_DEFAULT);
        assertEquals(Verdict.FRESH, watching.evaluate().evaluation().verdict());
        files.write(TalosFiles.CRI_TOML, TalosFiles.criToml("token-v1"), null);
        assertEquals(Reason.CONFIG_UNCHANGED_SINCE_LOAD, watching.evaluate().evaluation().reason());
    }

    @Test
    void renameOverThenMtimeSetBackIsStale() throws Exception {
        FakeContainerd cri = honestBoot();
        Instant beforeStart = realStart(cri).minusSeconds(5);
        // cp new f.tmp && mv f.tmp cri.toml && touch -d @<before start> cri.toml
        Path tmp = files.onHost("/etc/cri/conf.d/cri.toml.tmp");
        Files.writeString(tmp, TalosFiles.criToml("token-v2"));
        Files.move(tmp, files.onHost(TalosFiles.CRI_TOML), StandardCopyOption.ATOMIC_MOVE);
        touchBack(TalosFiles.CRI_TOML, beforeStart);
        assertNotFresh(evaluate(), Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START);
    }

    @Test
    void inPlaceRewriteThenMtimeSetBackIsStale() throws Exception {
        FakeContainerd cri = honestBoot();
        files.write(TalosFiles.REGISTRIES_PART, TalosFiles.registriesPart("token-v2"), realStart(cri).minusSeconds(5));
        files.write(TalosFiles.CRI_TOML, TalosFiles.criToml("token-v2"), realStart(cri).minusSeconds(5));
        Evaluation e = evaluate();
        assertNotFresh(e, Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START);
        assertTrue(e.message().contains("ctime"), e.message());
    }

    @Test
    void aSymlinkRePointedToAnOlderFileIsStale() throws Exception {
        // cri.toml is an absolute symlink; both targets were written before containerd started.
        files.writeAll("token-v1", null);
        files.write("/etc/cri/versions/v1.toml", TalosFiles.criToml("token-v1"), null);
        files.write("/etc/cri/versions/v2.toml", TalosFiles.criToml("token-v2"), null);
        Files.delete(files.onHost(TalosFiles.CRI_TOML));
        Files.createSymbolicLink(files.onHost(TalosFiles.CRI_TOML), Path.of("/etc/cri/versions/v1.toml"));
        FakeContainerd cri = node.containerdAfterTheFiles();
        Evaluator first = node.agent(WatchGlobs.TALOS_DEFAULT);
        var fresh = first.evaluate();
        // The absolute target resolved under the host root (the agent's own /etc/cri does not hold it).
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, fresh.evaluation().reason(), fresh.evaluation().message());
        assertEquals(fingerprint("token-v1"), fresh.registries().get("ghcr.io"));

        // ln -sfn /etc/cri/versions/v2.toml cri.toml — the target's mtime and ctime are both old.
        Files.delete(files.onHost(TalosFiles.CRI_TOML));
        Files.createSymbolicLink(files.onHost(TalosFiles.CRI_TOML), Path.of("/etc/cri/versions/v2.toml"));
        assertTrue(Files.getLastModifiedTime(files.onHost("/etc/cri/versions/v2.toml")).toInstant()
                .isBefore(realStart(cri)));
        var after = node.agent(WatchGlobs.TALOS_DEFAULT).evaluate();
        // The new link's ctime and its directory's stamps both moved; either proves the change.
        assertNotFresh(after.evaluation(), Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START);
        assertEquals(fingerprint("token-v2"), after.registries().get("ghcr.io"));
    }

    @Test
    void aDanglingOrLoopingSymlinkIsUnreadable() throws Exception {
        files.writeAll("token-v1", null);
        Files.delete(files.onHost(TalosFiles.CRI_TOML));
        Files.createSymbolicLink(files.onHost(TalosFiles.CRI_TOML), Path.of("/etc/cri/conf.d/loop.toml"));
        Files.createSymbolicLink(files.onHost("/etc/cri/conf.d/loop.toml"), Path.of("cri.toml"));
        node.containerdAfterTheFiles();
        Evaluation loop = evaluate();
        assertNotFresh(loop, Reason.CONFIG_UNREADABLE);
        assertTrue(loop.message().contains("symbolic links"), loop.message());
        Files.delete(files.onHost("/etc/cri/conf.d/loop.toml"));
        assertNotFresh(evaluate(), Reason.CONFIG_UNREADABLE);
    }

    @Test
    void anOverrideDeletedAfterContainerdStartedIsStale() throws Exception {
        List<String> globs = List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/*.toml");
        files.write(TalosFiles.CONTAINERD_TOML, """
                version = 3
                imports = ["conf.d/*.toml"]
                """, null);
        files.write(TalosFiles.CRI_TOML, TalosFiles.criToml("token-v1"), null);
        files.write("/etc/cri/conf.d/zz-override.toml", TalosFiles.criToml("token-old"), null);
        node.containerdAfterTheFiles();
        var fresh = node.agent(globs).evaluate();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, fresh.evaluation().reason(), fresh.evaluation().message());
        // The later import's CRI section replaces the earlier one, as containerd merges them.
        assertEquals(fingerprint("token-old"), fresh.registries().get("ghcr.io"));

        Files.delete(files.onHost("/etc/cri/conf.d/zz-override.toml"));
        var after = node.agent(globs).evaluate();
        assertNotFresh(after.evaluation(), Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START);
        assertTrue(after.evaluation().message().contains("/etc/cri/conf.d"), after.evaluation().message());
        assertEquals(fingerprint("token-v1"), after.registries().get("ghcr.io"));
    }

    @Test
    void anImportTheAgentDoesNotWatchIsUnknown() throws Exception {
        files.writeAll("token-v1", null);
        files.write(TalosFiles.CONTAINERD_TOML, """
                version = 3
                imports = ["/etc/cri/conf.d/cri.toml", "extra/*.toml"]
                """, null);
        files.write("/etc/cri/extra/10-mirror.toml", TalosFiles.criToml("token-v0"), null);
        node.containerdAfterTheFiles();
        Evaluation e = evaluate();
        assertNotFresh(e, Reason.CONFIG_UNWATCHED_IMPORT);
        assertTrue(e.message().contains("/etc/cri/extra/10-mirror.toml"), e.message());
        // Watching it (relative glob resolved against containerd.toml's directory) makes it fresh.
        Evaluation watched = node.agent(List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml",
                "/etc/cri/conf.d/*.part", "/etc/cri/extra/*.toml")).evaluate().evaluation();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, watched.reason(), watched.message());
    }

    @Test
    void aNestedImportThatIsADirectoryIsUnreadable() throws Exception {
        files.writeAll("token-v1", null);
        files.write(TalosFiles.CRI_TOML, "imports = [\"more/*.toml\"]\n" + TalosFiles.criToml("token-v1"), null);
        Files.createDirectories(files.onHost("/etc/cri/conf.d/more/dir.toml"));
        node.containerdAfterTheFiles();
        assertNotFresh(node.agent(List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml",
                "/etc/cri/conf.d/more/*.toml")).evaluate().evaluation(), Reason.CONFIG_UNREADABLE);
        assertNotFresh(evaluate(), Reason.CONFIG_UNWATCHED_IMPORT);
    }

    @Test
    void theConfigIsTheOneOnContainerdsCommandLine() throws Exception {
        files.writeAll("token-v1", null);
        files.write("/etc/cri/other.toml", "version = 3\n", null);
        waitPast(Instant.now().plus(SETTLE));
        // Short flags and -flag=value, as containerd's CLI accepts them.
        start(List.of("/bin/containerd", "-a", "/run/containerd/containerd.sock", "-config=/etc/cri/containerd.toml"));
        Evaluation e = evaluate();
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, e.reason(), e.message());
    }

    @Test
    void twoConfigsOnTheCommandLineAreUnknown() throws Exception {
        files.writeAll("token-v1", null);
        waitPast(Instant.now().plus(SETTLE));
        start(List.of("/bin/containerd", "--address", "/run/containerd/containerd.sock", "--config",
                "/etc/cri/containerd.toml", "-c", "/etc/cri/other.toml"));
        Evaluation e = evaluate();
        assertNotFresh(e, Reason.CONTAINERD_AMBIGUOUS);
        assertTrue(e.message().contains("--config"), e.message());
    }

    @Test
    void aProcessThatOnlyCallsItselfContainerdIsUnknown() throws Exception {
        files.writeAll("token-v1", null);
        waitPast(Instant.now().plus(SETTLE));
        start(FakeContainerd.TALOS_CRI, "impostor"); // argv[0] says containerd, the kernel's comm does not
        Evaluation e = evaluate();
        assertNotFresh(e, Reason.CONTAINERD_AMBIGUOUS);
        assertTrue(e.message().contains("impostor"), e.message());
    }

    @Test
    void invalidUtf8IsUnreadableNotReplaced() throws Exception {
        files.writeAll("token-v1", null);
        byte[] valid = TalosFiles.criToml("token-v1").getBytes(StandardCharsets.UTF_8);
        byte[] broken = new byte[valid.length + 1];
        System.arraycopy(valid, 0, broken, 0, valid.length);
        broken[valid.length] = (byte) 0xff;
        Files.write(files.onHost(TalosFiles.CRI_TOML), broken);
        node.containerdAfterTheFiles();
        Evaluation e = evaluate();
        assertNotFresh(e, Reason.CONFIG_UNREADABLE);
        assertTrue(e.message().contains("UTF-8"), e.message());
    }

    @Test
    void aLegacyRegistryInAVersion3FileIsReadAsEachGenerationReadsIt() throws Exception {
        files.writeAll("token-v1", null);
        // A version 3 file with a 1.x CRI section too (issue 36's L1): containerd 2.1 and 2.2 read the images plugin,
        // 2.3 migrates the 1.x section's registry over it. Without the generation the agent cannot tell: unknown.
        files.write(TalosFiles.CRI_TOML, TalosFiles.criToml("token-v1") + """

                [plugins.'io.containerd.grpc.v1.cri'.registry.configs.'ghcr.io'.auth]
                username = 'deploy-bot'
                password = 'decoy'
                """, null);
        node.containerdAfterTheFiles();
        var auto = node.agent(WatchGlobs.TALOS_DEFAULT).evaluate();
        assertEquals(Verdict.UNKNOWN, auto.evaluation().verdict(), auto.evaluation().message());
        assertEquals(Reason.CONFIG_UNREADABLE, auto.evaluation().reason());
        var v22 = node.agent(ContainerdReading.Generation.V2_2).evaluate();
        assertEquals(Verdict.FRESH, v22.evaluation().verdict(), v22.evaluation().message());
        assertEquals(fingerprint("token-v1"), v22.registries().get("ghcr.io"));
        var v23 = node.agent(ContainerdReading.Generation.V2_3).evaluate();
        assertEquals(Verdict.FRESH, v23.evaluation().verdict(), v23.evaluation().message());
        assertEquals(fingerprint("decoy"), v23.registries().get("ghcr.io"));
    }
}
