package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the containerd TOML registry parser. Invariants: it never throws, it is deterministic, a failure
 * never repeats a secret value, a result never holds a credential the document does not spell.
 * Seeds: {@code src/test/resources/dev/crifresh/common/registry/CriRegistryConfigFuzzTestInputs/}.
 */
class CriRegistryConfigFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void parse(byte[] input) {
        String toml = new String(input, StandardCharsets.UTF_8);
        RegistryParse result = CriRegistryConfig.parse(toml);
        assertEquals(result, CriRegistryConfig.parse(toml), "the same document parsed twice");
        SecretLeaks.check(toml, result, CriRegistryConfig::parse);
    }
}
