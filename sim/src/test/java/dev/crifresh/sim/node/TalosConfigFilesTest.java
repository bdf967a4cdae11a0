package dev.crifresh.sim.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.common.registry.CriRegistryConfig;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.registry.RegistryParse;
import dev.crifresh.sim.scenario.Credential;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.toml.TomlMapper;

class TalosConfigFilesTest {
    private static final Credential CRED = new Credential("deploy-bot", "token-v2");

    @Test
    void theMergedFileAndThePartCarryTheCredentialWhereContainerdReadsIt() {
        for (String toml : List.of(TalosConfigFiles.criToml("ghcr.io", CRED),
                TalosConfigFiles.registriesPart("ghcr.io", CRED))) {
            RegistryParse.Parsed parsed = assertInstanceOf(RegistryParse.Parsed.class, CriRegistryConfig.parse(toml));
            assertEquals(List.of(new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "")), parsed.credentials());
        }
    }

    @Test
    void theMergedFileNamesEachPartWithItsHash() {
        String merged = TalosConfigFiles.criToml("ghcr.io", CRED);
        List<String> lines = merged.lines().toList();
        assertEquals("## /etc/cri/conf.d/00-base.part (sha256:"
                + ConfigDigest.sha256Hex(TalosConfigFiles.basePart().getBytes(StandardCharsets.UTF_8)) + ")", lines.get(0));
        assertEquals("## /etc/cri/conf.d/01-registries.part (sha256:" + ConfigDigest.sha256Hex(
                TalosConfigFiles.registriesPart("ghcr.io", CRED).getBytes(StandardCharsets.UTF_8)) + ")", lines.get(1));
    }

    @Test
    void theBaseFilesAreValidTomlWithoutCredentials() {
        JsonNode containerd = new TomlMapper().readTree(TalosConfigFiles.containerdToml());
        assertEquals("/etc/cri/conf.d/cri.toml", containerd.get("imports").get(0).stringValue());
        assertEquals(new RegistryParse.Parsed(List.of()), CriRegistryConfig.parse(TalosConfigFiles.containerdToml()));
        assertEquals(new RegistryParse.Parsed(List.of()), CriRegistryConfig.parse(TalosConfigFiles.basePart()));
        JsonNode merged = new TomlMapper().readTree(TalosConfigFiles.criToml("ghcr.io", CRED));
        assertTrue(merged.at("/plugins/io.containerd.cri.v1.images/use_local_image_pull").booleanValue());
        assertEquals("/etc/cri/conf.d/hosts",
                merged.at("/plugins/io.containerd.cri.v1.images/registry/config_path").stringValue());
    }

    @Test
    void awkwardPasswordsSurviveTheRoundTrip() {
        Credential odd = new Credential("o'brien", "p\"a\\ss'word with spaces");
        RegistryParse.Parsed parsed = assertInstanceOf(RegistryParse.Parsed.class,
                CriRegistryConfig.parse(TalosConfigFiles.criToml("registry.local:5000", odd)));
        assertEquals(List.of(new RegistryAuth("registry.local:5000", "o'brien", "p\"a\\ss'word with spaces", "")),
                parsed.credentials());
    }

    @Test
    void theContainerd1xRenderingIsReadAsVersion2WithTheCredentialInTheMergedFileOnly() {
        TalosConfigFiles.CriSettings settings = new TalosConfigFiles.CriSettings("native", "/opt/cni/bin", "/etc/cni/net.d");
        dev.crifresh.common.registry.ContainerdConfigFile.Parsed merged = assertInstanceOf(
                dev.crifresh.common.registry.ContainerdConfigFile.Parsed.class,
                dev.crifresh.common.registry.ContainerdConfigFile.parse(TalosConfigFiles.criTomlV2("ghcr.io", CRED, settings)));
        assertEquals(2, merged.version());
        assertEquals(List.of(new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "")), merged.credentials());
        dev.crifresh.common.registry.ContainerdConfigFile.Parsed main = assertInstanceOf(
                dev.crifresh.common.registry.ContainerdConfigFile.Parsed.class,
                dev.crifresh.common.registry.ContainerdConfigFile.parse(TalosConfigFiles.containerdTomlV2()));
        assertEquals(List.of(TalosConfigFiles.CRI_TOML), main.imports());
        assertEquals("native", new TomlMapper().readTree(TalosConfigFiles.basePartV2(settings))
                .at("/plugins/io.containerd.grpc.v1.cri/containerd/snapshotter").stringValue());
        List<String> lines = TalosConfigFiles.criTomlV2("ghcr.io", CRED, settings).lines().toList();
        assertEquals("## /etc/cri/conf.d/01-registries.part (sha256:" + ConfigDigest.sha256Hex(
                TalosConfigFiles.registriesPartV2("ghcr.io", CRED).getBytes(StandardCharsets.UTF_8)) + ")", lines.get(1));
    }

    /**
     * Every release's layout, read as the agent reads it in Talos mode (generation unknown): the credential, from
     * the files containerd loads ({@code containerd.toml} and the merged {@code cri.toml}). Talos 1.15's
     * version 4 layout is checked here only: no containerd that reads version 4 (2.2 and later) runs here — from
     * source only.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(TalosConfigFiles.Layout.class)
    void everyLayoutIsReadAsTheCredentialFromTheFilesContainerdLoads(TalosConfigFiles.Layout layout) {
        TalosConfigFiles.CriSettings settings = new TalosConfigFiles.CriSettings("native", "/opt/cni/bin", "/etc/cni/net.d");
        List<TalosConfigFiles.File> files = layout.files("ghcr.io", CRED, settings);
        List<String> paths = files.stream().map(TalosConfigFiles.File::path).toList();
        assertEquals(layout.registriesPartOnDisk(), paths.contains(TalosConfigFiles.REGISTRIES_PART), paths.toString());
        List<dev.crifresh.common.registry.ContainerdReading.Document> loaded = new java.util.ArrayList<>();
        for (TalosConfigFiles.File f : files) {
            dev.crifresh.common.registry.ContainerdConfigFile.Parsed parsed = assertInstanceOf(
                    dev.crifresh.common.registry.ContainerdConfigFile.Parsed.class,
                    dev.crifresh.common.registry.ContainerdConfigFile.parse(f.text()), f.path());
            if (f.path().equals(TalosConfigFiles.CONTAINERD_TOML) || f.path().equals(TalosConfigFiles.CRI_TOML)) {
                assertEquals(layout.version(), parsed.version(), f.path());
                loaded.add(new dev.crifresh.common.registry.ContainerdReading.Document(f.path(), parsed));
            }
        }
        assertEquals(java.util.Map.of("ghcr.io", new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "")),
                assertInstanceOf(dev.crifresh.common.registry.ContainerdReading.Read.class,
                        dev.crifresh.common.registry.ContainerdReading.read(loaded, true)).byHost(), layout.release());
        // the merged file holds the auth: Talos >= 1.14 writes it 0600, as the part was
        assertEquals(!layout.registriesPartOnDisk(), files.get(files.size() - 1).secret());
        if (!layout.registriesPartOnDisk()) {
            assertTrue(files.get(files.size() - 1).text().startsWith("## file /etc/cri/conf.d/00-base.part\n"
                    + "## in-memory registries\n"));
        }
    }
}
