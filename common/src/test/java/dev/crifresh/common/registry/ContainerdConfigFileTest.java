package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ContainerdConfigFileTest {
    private static final String IMAGES = """
            [plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]
            username = 'u3'
            password = 'p3'
            """;
    private static final String CRI_V1 = """
            [plugins.'io.containerd.grpc.v1.cri'.registry.configs.'ghcr.io'.auth]
            username = 'u2'
            password = 'p2'
            """;

    private static ContainerdConfigFile.Parsed parsed(String toml) {
        return assertInstanceOf(ContainerdConfigFile.Parsed.class, ContainerdConfigFile.parse(toml));
    }

    @Test
    void versionThreeReadsOnlyTheImagesPlugin() {
        ContainerdConfigFile.Parsed p = parsed("version = 3\n" + IMAGES + CRI_V1);
        assertEquals(3, p.version());
        assertTrue(p.definesSection());
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u3", "p3", "")), p.credentials());
    }

    @Test
    void versionTwoReadsOnlyTheCriV1Plugin() {
        ContainerdConfigFile.Parsed p = parsed("version = 2\n" + IMAGES + CRI_V1);
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u2", "p2", "")), p.credentials());
        assertFalse(parsed("version = 2\n" + IMAGES).definesSection());
    }

    @Test
    void everyVersionContainerdKnowsIsReadAndOthersAreNot() {
        for (String version : List.of("", "version = 1\n", "version = 4\n")) {
            ContainerdConfigFile.Parsed p = parsed(version + IMAGES + CRI_V1);
            assertTrue(p.section(ContainerdConfigFile.IMAGES_PLUGIN).defined(), version);
            assertTrue(p.section(ContainerdConfigFile.CRI_V1_PLUGIN).defined(), version);
        }
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u3", "p3", "")), parsed("version = 4\n" + IMAGES).credentials());
        for (String version : List.of("version = 5\n", "version = -1\n", "version = '3'\n")) {
            ContainerdConfigFile.Result r = ContainerdConfigFile.parse(version + IMAGES);
            ContainerdConfigFile.Failed f = assertInstanceOf(ContainerdConfigFile.Failed.class, r, version);
            assertFalse(f.message().contains("p3"), f.message());
        }
        // A version 5 file fails even without a CRI section: nobody knows what it means.
        assertInstanceOf(ContainerdConfigFile.Failed.class, ContainerdConfigFile.parse("version = 5\n"));
        assertEquals(List.of(), parsed("[debug]\nlevel = 'info'\n").credentials());
    }

    @Test
    void theShapesTheReadingNeedsAreSeen() {
        ContainerdConfigFile.Parsed p = parsed("""
                [plugins.cri.registry.configs.'ghcr.io'.auth]
                password = 'x'
                [plugins.'io.containerd.grpc.v1.cri'.containerd.runtimes.runc]
                runtime_type = 'io.containerd.runc.v2'
                """);
        assertTrue(p.shortPluginKeys());
        assertTrue(p.criRuntimes());
        assertTrue(p.section("cri").registryDefined());
        assertFalse(p.section(ContainerdConfigFile.CRI_V1_PLUGIN).registryDefined());
        assertEquals(java.util.Set.of("password"), p.section("cri").auths().get("ghcr.io").fields());
    }

    @Test
    void importsAreReadAsWritten() {
        ContainerdConfigFile.Parsed p = parsed("version = 3\nimports = ['/etc/cri/conf.d/cri.toml', 'conf.d/*.toml']\n");
        assertEquals(List.of("/etc/cri/conf.d/cri.toml", "conf.d/*.toml"), p.imports());
        assertInstanceOf(ContainerdConfigFile.Failed.class, ContainerdConfigFile.parse("imports = '/x.toml'\n"));
        assertInstanceOf(ContainerdConfigFile.Failed.class, ContainerdConfigFile.parse("imports = [1]\n"));
        assertInstanceOf(ContainerdConfigFile.Failed.class, ContainerdConfigFile.parse("version = 3\n[x\n"));
    }
}
