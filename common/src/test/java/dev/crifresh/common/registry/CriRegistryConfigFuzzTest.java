package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the containerd TOML registry parser. Invariants: it never throws, it is deterministic, a failure
 * never repeats a secret value, a result never holds a credential the document does not spell. The same
 * input goes through the per-file reader ({@link ContainerdConfigFile}) and containerd's reading of it as a
 * root config with itself as an import ({@link ContainerdReading}, both generations): they never throw and
 * are deterministic (their messages are built from paths, hosts and versions only).
 * Seeds: {@code src/test/resources/dev/crifresh/common/registry/CriRegistryConfigFuzzTestInputs/}.
 */
class CriRegistryConfigFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void parse(byte[] input) {
        String toml = new String(input, StandardCharsets.UTF_8);
        RegistryParse result = CriRegistryConfig.parse(toml);
        assertEquals(result, CriRegistryConfig.parse(toml), "the same document parsed twice");
        SecretLeaks.check(toml, result, CriRegistryConfig::parse);

        ContainerdConfigFile.Result file = ContainerdConfigFile.parse(toml);
        assertEquals(file, ContainerdConfigFile.parse(toml), "the same file parsed twice");
        if (file instanceof ContainerdConfigFile.Parsed parsed) {
            java.util.List<ContainerdReading.Document> docs = java.util.List.of(
                    new ContainerdReading.Document("root.toml", parsed), new ContainerdReading.Document("import.toml", parsed));
            for (boolean talos : new boolean[] {true, false}) {
                assertEquals(ContainerdReading.read(docs, talos), ContainerdReading.read(docs, talos),
                        "containerd's reading, twice");
            }
            ContainerdReading.read(docs, ContainerdReading.Generation.ONE);
        }
    }
}
