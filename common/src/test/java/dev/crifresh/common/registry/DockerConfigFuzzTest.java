package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the docker {@code config.json} parser, with the invariants of {@link CriRegistryConfigFuzzTest}.
 * Seeds: {@code src/test/resources/dev/crifresh/common/registry/DockerConfigFuzzTestInputs/}.
 */
class DockerConfigFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void parse(byte[] input) {
        String json = new String(input, StandardCharsets.UTF_8);
        RegistryParse result = DockerConfig.parse(json);
        assertEquals(result, DockerConfig.parse(json), "the same document parsed twice");
        SecretLeaks.check(json, result, DockerConfig::parse);
    }
}
