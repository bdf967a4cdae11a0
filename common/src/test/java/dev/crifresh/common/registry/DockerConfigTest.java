package dev.crifresh.common.registry;

import static dev.crifresh.common.registry.Fixtures.failedWithout;
import static dev.crifresh.common.registry.Fixtures.parsed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DockerConfigTest {

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void configJsonWithUrlKeysAuthIdentityTokenAndCredentialHelpers() {
        assertEquals(List.of(
                        new RegistryAuth("docker.io", "hubuser", "hub-pa55", ""),
                        new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", ""),
                        new RegistryAuth("registry.local:5000", "", "", "idtok-123")),
                parsed(DockerConfig.parse(Fixtures.read("docker-config.json"))));
    }

    @ParameterizedTest
    @ValueSource(strings = {"docker.io", "index.docker.io", "registry-1.docker.io", "https://index.docker.io/v1/",
            "https://registry-1.docker.io/v2/", "DOCKER.IO"})
    void dockerHubSpellingsAllMeanDockerIo(String key) {
        String json = "{\"auths\":{\"" + key + "\":{\"auth\":\"" + b64("hubuser:hub-pa55") + "\"}}}";
        assertEquals(List.of(new RegistryAuth("docker.io", "hubuser", "hub-pa55", "")),
                parsed(DockerConfig.parse(json)));
    }

    @Test
    void twoSpellingsOfOneHostWithTheSameCredentialAreOneEntry() {
        String json = "{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"" + b64("u:p") + "\"},"
                + "\"docker.io\":{\"username\":\"u\",\"password\":\"p\"}}}";
        assertEquals(List.of(new RegistryAuth("docker.io", "u", "p", "")), parsed(DockerConfig.parse(json)));
    }

    @Test
    void twoSpellingsOfOneHostWithDifferentCredentialsAreAmbiguous() {
        String json = "{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"" + b64("u:pass-a") + "\"},"
                + "\"docker.io\":{\"username\":\"u\",\"password\":\"pass-b\"}}}";
        String message = failedWithout(DockerConfig.parse(json), "pass-a", "pass-b", b64("u:pass-a"));
        assertTrue(message.contains("docker.io") && message.contains("ambiguous"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"credsStore\":\"desktop\"}", "{\"auths\":{}}", "{\"auths\":null}"})
    void noInlineCredentials(String json) {
        assertEquals(List.of(), parsed(DockerConfig.parse(json)));
    }

    @Test
    void nullFieldsAreEmpty() {
        String json = "{\"auths\":{\"ghcr.io\":{\"username\":\"u\",\"password\":\"p\",\"auth\":null,"
                + "\"identitytoken\":null,\"email\":\"ops@example.com\"}}}";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u", "p", "")), parsed(DockerConfig.parse(json)));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"auths\":{\"ghcr.io\":{\"password\":hunter2-secret}}}",
            "{\"auths\":{\"ghcr.io\":{\"password\":\"hunter2-secret\"}}",
            "{\"auths\":{\"ghcr.io\":{\"password\":\"hunter2-secret\"}}} hunter2-secret",
            "{\"auths\":{\"ghcr.io\":{\"password\":\"hunter2-secret\",\"password\":\"hunter2-other\"}}}",
            "{\"auths\":{\"ghcr.io\":{\"password\":\"hunter2-secret\"},\n\"ghcr.io\":{\"password\":\"hunter2-x\"}}}",
            "{\"auths\":{\"ghcr.io\":{\"password\":'hunter2-secret'}}}",
    })
    void malformedJsonFailsWithALocationAndNoSecret(String json) {
        String message = failedWithout(DockerConfig.parse(json), "hunter2");
        assertTrue(message.matches("malformed JSON( \\(duplicate key\\))? at line \\d+, column \\d+"), message);
    }

    @Test
    void duplicateHostKeysAreReportedAsSuch() {
        String json = "{\"auths\":{\n\"ghcr.io\":{\"password\":\"hunter2-a\"},\n\"ghcr.io\":{\"password\":\"hunter2-b\"}}}";
        String message = failedWithout(DockerConfig.parse(json), "hunter2");
        assertTrue(message.startsWith("malformed JSON (duplicate key) at line 3"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  \n"})
    void anEmptyDocumentFails(String json) {
        assertEquals("docker config is empty", failedWithout(DockerConfig.parse(json)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "\"hunter2\"", "42"})
    void aDocumentThatIsNotAnObjectFails(String json) {
        assertEquals("docker config is not a JSON object", failedWithout(DockerConfig.parse(json), "hunter2"));
    }

    @Test
    void structuralProblemsNameTheJsonPath() {
        assertEquals("auths is not an object", failedWithout(DockerConfig.parse("{\"auths\":[\"hunter2\"]}"), "hunter2"));
        assertEquals("auths.\"ghcr.io\" is not an object",
                failedWithout(DockerConfig.parse("{\"auths\":{\"ghcr.io\":\"hunter2\"}}"), "hunter2"));
        assertEquals("auths.\"ghcr.io\".password is not a string",
                failedWithout(DockerConfig.parse("{\"auths\":{\"ghcr.io\":{\"password\":424242}}}"), "424242"));
    }

    @Test
    void badAuthValuesFailNamingTheHost() {
        String badBase64 = "{\"auths\":{\"https://ghcr.io/\":{\"auth\":\"hunter2%%%\"}}}";
        String message = failedWithout(DockerConfig.parse(badBase64), "hunter2");
        assertTrue(message.contains("ghcr.io") && message.contains("base64"), message);

        String noColon = "{\"auths\":{\"quay.io\":{\"auth\":\"" + b64("hunter2") + "\"}}}";
        message = failedWithout(DockerConfig.parse(noColon), "hunter2", b64("hunter2"));
        assertTrue(message.contains("quay.io") && message.contains("colon"), message);
    }

    @Test
    void base64WithLineBreaksOrWithoutPaddingDecodes() {
        String wrapped = b64("deploy-bot:token-v2").substring(0, 8) + "\\n" + b64("deploy-bot:token-v2").substring(8);
        String unpadded = b64("u:p1").replace("=", "");
        String json = "{\"auths\":{\"ghcr.io\":{\"auth\":\"" + wrapped + "\"},\"quay.io\":{\"auth\":\"" + unpadded + "\"}}}";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", ""),
                        new RegistryAuth("quay.io", "u", "p1", "")),
                parsed(DockerConfig.parse(json)));
    }
}
