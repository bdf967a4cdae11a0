package dev.crifresh.agent.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.FakeProc;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.registry.ContainerdReading;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.mockapi.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent reads each config version as containerd does (common's ContainerdReading), on real files:
 * a version-less import is read, not unknown; a doubt between containerd generations is unknown in
 * generic mode; version 4 (Talos 1.15) is read; a version nobody knows is unknown.
 */
class ConfigVersionsTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

    @TempDir
    Path dir;

    private Assessment observe(String root, String criToml, boolean talos) throws Exception {
        return observe(root, criToml, talos, null);
    }

    private Assessment observe(String root, String criToml, boolean talos, ContainerdReading.Generation generation)
            throws Exception {
        Path proc = dir.resolve("proc");
        Path host = dir.resolve("host");
        TalosFiles files = new TalosFiles(host);
        files.write(TalosFiles.CONTAINERD_TOML, root, null);
        files.write(TalosFiles.CRI_TOML, criToml, null);
        files.write(TalosFiles.REGISTRIES_PART, "", null);
        Instant rendered = Instant.now();
        Poll.until(Duration.ofSeconds(5), "time passes", () -> Instant.now().isAfter(rendered.plusMillis(400)));
        // booted 1000 s ago, containerd started 999.8 s after boot: after the files were written
        new FakeProc(proc).bootId("6f1e0c0a-0000-4000-8000-000000000002").uptime(Duration.ofSeconds(1000))
                .process(4242, FakeContainerd.TALOS_CRI, 99_980);
        HostReader reader = new HostReader(proc, host, WatchGlobs.TALOS_DEFAULT, ContainerdMatcher.talosCri(),
                HostClock.system(proc), MountPolicy.DEFAULT);
        return new Evaluator(reader, new RuleSettings(RuleSettings.DEFAULT_MARGIN, talos), KEY, generation).evaluate();
    }

    private static String auth(String plugin, String password) {
        return "[plugins.\"" + plugin + "\".registry.configs.\"ghcr.io\".auth]\nusername = \"deploy-bot\"\n"
                + "password = \"" + password + "\"\n";
    }

    private static String fingerprint(String password) {
        return CredentialFingerprint.of(KEY, new RegistryAuth("ghcr.io", "deploy-bot", password, ""));
    }

    private static final String ROOT_V2 = "version = 2\nimports = [\"/etc/cri/conf.d/cri.toml\"]\n";

    @Test
    void aVersionLessImportIsReadAsContainerdOneReadsItUnderAVersionTwoRoot() throws Exception {
        Assessment a = observe(ROOT_V2, auth("io.containerd.grpc.v1.cri", "token-v1"), true);
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, a.evaluation().reason(), a.evaluation().message());
        assertEquals(fingerprint("token-v1"), a.registries().get("ghcr.io"));
    }

    @Test
    void whenTheGenerationsDisagreeGenericModeCannotTell() throws Exception {
        // containerd 1.x reads the version-less import; containerd 2.1 migrates the registry-only 1.x section,
        // 2.0's source drops it (docs/design.md).
        Assessment a = observe(ROOT_V2, auth("io.containerd.grpc.v1.cri", "token-v1"), false);
        assertEquals(Reason.CONFIG_UNREADABLE, a.evaluation().reason(), a.evaluation().message());
        assertTrue(a.evaluation().message().contains("containerd 1.x and 2.x"), a.evaluation().message());
        assertTrue(!a.evaluation().message().contains("token-v1"), a.evaluation().message());
        // --containerd-generation one settles it: 1.x reads the credential. two does not: 2.0's source differs.
        Assessment one = observe(ROOT_V2, auth("io.containerd.grpc.v1.cri", "token-v1"), false,
                ContainerdReading.Generation.ONE);
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, one.evaluation().reason(), one.evaluation().message());
        assertEquals(fingerprint("token-v1"), one.registries().get("ghcr.io"));
        Assessment two = observe(ROOT_V2, auth("io.containerd.grpc.v1.cri", "token-v1"), false,
                ContainerdReading.Generation.TWO);
        assertEquals(Reason.CONFIG_UNREADABLE, two.evaluation().reason(), two.evaluation().message());
        assertTrue(two.evaluation().message().contains("containerd 2.0 (known from its source only) leaves it where"
                + " 2.1 moves it"), two.evaluation().message());
        assertTrue(!two.evaluation().message().contains("token-v1"), two.evaluation().message());
        // Naming the 2.x generation exactly settles it too: 2.1 and 2.3 (the real binaries) move it.
        for (ContainerdReading.Generation exact : java.util.List.of(ContainerdReading.Generation.V2_1,
                ContainerdReading.Generation.V2_3)) {
            Assessment read = observe(ROOT_V2, auth("io.containerd.grpc.v1.cri", "token-v1"), false, exact);
            assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, read.evaluation().reason(), read.evaluation().message());
            assertEquals(fingerprint("token-v1"), read.registries().get("ghcr.io"));
        }
    }

    @Test
    void versionFourIsReadFromTheImagesPlugin() throws Exception {
        Assessment a = observe("version = 4\nimports = [\"/etc/cri/conf.d/cri.toml\"]\n",
                "version = 4\n" + auth("io.containerd.cri.v1.images", "token-v4"), true);
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, a.evaluation().reason(), a.evaluation().message());
        assertEquals(fingerprint("token-v4"), a.registries().get("ghcr.io"));
    }

    @Test
    void aVersionNobodyKnowsIsUnknown() throws Exception {
        Assessment a = observe("version = 5\nimports = [\"/etc/cri/conf.d/cri.toml\"]\n",
                "version = 5\n" + auth("io.containerd.cri.v1.images", "token-v5"), true);
        assertEquals(Reason.CONFIG_UNREADABLE, a.evaluation().reason(), a.evaluation().message());
        assertTrue(a.evaluation().message().contains("version 5"), a.evaluation().message());
    }
}
