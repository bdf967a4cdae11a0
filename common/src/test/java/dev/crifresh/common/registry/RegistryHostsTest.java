package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RegistryHostsTest {

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "ghcr.io                              | ghcr.io",
            "\"  ghcr.io  \"                      | ghcr.io",
            "GHCR.IO                              | ghcr.io",
            "https://ghcr.io                      | ghcr.io",
            "https://ghcr.io/                     | ghcr.io",
            "http://ghcr.io/v2/                   | ghcr.io",
            "HTTPS://Ghcr.Io/some/path?x=1        | ghcr.io",
            "ghcr.io/                             | ghcr.io",
            "docker.io                            | docker.io",
            "index.docker.io                      | docker.io",
            "registry-1.docker.io                 | docker.io",
            "https://index.docker.io/v1/          | docker.io",
            "https://registry-1.docker.io/v2/     | docker.io",
            "INDEX.DOCKER.IO                      | docker.io",
            "registry.local:5000                  | registry.local:5000",
            "http://registry.local:5000/          | registry.local:5000",
            "10.0.0.7:5000                        | 10.0.0.7:5000",
            "https://user:pw@ghcr.io/             | ghcr.io",
            "index.docker.io:443                  | index.docker.io:443",
            "\"\"                                 | \"\"",
    })
    void normalises(String input, String expected) {
        assertEquals(expected, RegistryHosts.normalise(input));
    }

    @ParameterizedTest
    @CsvSource({"https://index.docker.io/v1/", " GHCR.io/ ", "http://registry.local:5000/x", "user@ghcr.io"})
    void isIdempotent(String input) {
        String once = RegistryHosts.normalise(input);
        assertEquals(once, RegistryHosts.normalise(once));
    }

    @Test
    void rejectsNull() {
        assertThrows(NullPointerException.class, () -> RegistryHosts.normalise(null));
    }
}
