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

class CriRegistryConfigTest {
    private static final String V2 = "plugins.'io.containerd.cri.v1.images'.registry.configs";
    private static final String V1 = "plugins.\"io.containerd.grpc.v1.cri\".registry.configs";

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void talosRegistriesPartWithAllFourKeysAndEmptyStrings() {
        assertEquals(List.of(new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "")),
                parsed(CriRegistryConfig.parse(Fixtures.read("talos-01-registries.part"))));
    }

    @Test
    void talosMergedCriTomlWithHeaderComments() {
        String toml = Fixtures.read("talos-merged-cri.toml");
        assertTrue(toml.startsWith("## /etc/cri/conf.d/00-base.part (sha256:"), "fixture keeps Talos' header");
        assertEquals(List.of(
                        new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", ""),
                        new RegistryAuth("registry.local:5000", "pull-robot", "rob0t-pa55", "")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void talosContainerdTomlWithOnlyImportsHasNoCredentials() {
        assertEquals(List.of(), parsed(CriRegistryConfig.parse(Fixtures.read("talos-containerd.toml"))));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\n", "# nothing here\n", "version = 3\n[plugins.'io.containerd.cri.v1.images']\n"
            + "  discard_unpacked_layers = true\n",
            "[plugins.'io.containerd.cri.v1.images'.registry]\n  config_path = '/etc/cri/conf.d/hosts'\n"})
    void documentsWithoutRegistryAuthHaveNoCredentials(String toml) {
        assertEquals(List.of(), parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void containerd1ConfigSkipsTlsOnlyHosts() {
        assertEquals(List.of(new RegistryAuth("gcr.io", "_json_key", "gcr-s3cret", "")),
                parsed(CriRegistryConfig.parse(Fixtures.read("containerd1-config.toml"))));
    }

    @Test
    void authOnlyIsDecodedAndSplitAtTheFirstColon() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  auth = '" + b64("deploy-bot:pa:ss:word") + "'\n";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "deploy-bot", "pa:ss:word", "")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void authWithEmptyUserOrPasswordDecodesToEmptyParts() {
        String toml = "[" + V2 + ".'a.example'.auth]\n  auth = '" + b64(":only-pass") + "'\n"
                + "[" + V2 + ".'b.example'.auth]\n  auth = '" + b64("only-user:") + "'\n";
        assertEquals(List.of(new RegistryAuth("a.example", "", "only-pass", ""),
                        new RegistryAuth("b.example", "only-user", "", "")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void authIsIgnoredWhenUsernameIsSetButNotWhenOnlyPasswordIs() {
        // containerd's ParseAuth: a non-empty username wins; a password without one is not looked at.
        String toml = "[" + V2 + ".'a.example'.auth]\n  username = 'alice'\n  auth = '" + b64("bob:bobs-pw") + "'\n"
                + "[" + V2 + ".'b.example'.auth]\n  password = 'pw-only'\n  auth = '" + b64("bob:bobs-pw") + "'\n"
                + "[" + V2 + ".'c.example'.auth]\n  password = 'pw-only'\n";
        assertEquals(List.of(new RegistryAuth("a.example", "alice", "", ""),
                        new RegistryAuth("b.example", "bob", "bobs-pw", ""), new RegistryAuth("c.example", "", "", "")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void identityTokenOnly() {
        String toml = "[" + V2 + ".'myacr.azurecr.io'.auth]\n  auth = ''\n  identitytoken = 'eyJ-refresh-token'\n"
                + "  password = ''\n  username = ''\n";
        assertEquals(List.of(new RegistryAuth("myacr.azurecr.io", "", "", "eyJ-refresh-token")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void anIdentityTokenWinsOverAuthAndAUsernameOverAnIdentityToken() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  auth = '" + b64("u:p") + "'\n  identitytoken = 'tok'\n"
                + "[" + V2 + ".'quay.io'.auth]\n  username = 'u'\n  password = 'p'\n  identitytoken = 'tok'\n";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "", "", "tok"), new RegistryAuth("quay.io", "u", "p", "")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void containerd1PathWithInlineTables() {
        String toml = "[" + V1 + "]\n\"ghcr.io\" = { auth = { username = \"u1\", password = \"p1\" } }\n";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u1", "p1", "")), parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void bothPathsInOneFileAreBothRead() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  username = 'u2'\n  password = 'p2'\n"
                + "[" + V1 + ".\"quay.io\".auth]\n  username = \"u1\"\n  password = \"p1\"\n";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u2", "p2", ""), new RegistryAuth("quay.io", "u1", "p1", "")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void sameHostOnBothPathsWithTheSameCredentialIsOneEntry() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  username = 'u'\n  password = 'p'\n"
                + "[" + V1 + ".\"ghcr.io\".auth]\n  auth = \"" + b64("u:p") + "\"\n";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u", "p", "")), parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void sameHostOnBothPathsWithDifferentCredentialsIsAmbiguous() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  username = 'u'\n  password = 'new-pass'\n"
                + "[" + V1 + ".\"ghcr.io\".auth]\n  username = \"u\"\n  password = \"old-pass\"\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "new-pass", "old-pass");
        assertTrue(message.contains("ghcr.io") && message.contains("ambiguous"), message);
    }

    @Test
    void hostSpellingsThatNormaliseAlikeWithDifferentCredentialsAreAmbiguous() {
        String toml = "[" + V2 + ".'docker.io'.auth]\n  username = 'u'\n  password = 'pass-a'\n"
                + "[" + V2 + ".'registry-1.docker.io'.auth]\n  username = 'u'\n  password = 'pass-b'\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "pass-a", "pass-b");
        assertTrue(message.contains("docker.io") && message.contains("ambiguous"), message);
    }

    @Test
    void hostsAreNormalisedAndSorted() {
        String toml = "[" + V2 + ".'Registry-1.Docker.IO'.auth]\n  username = 'hub'\n  password = 'h'\n"
                + "[" + V2 + ".'https://GHCR.io/'.auth]\n  username = 'gh'\n  password = 'g'\n"
                + "[" + V2 + ".'registry.local:5000'.auth]\n  username = 'loc'\n  password = 'l'\n";
        assertEquals(List.of(new RegistryAuth("docker.io", "hub", "h", ""), new RegistryAuth("ghcr.io", "gh", "g", ""),
                        new RegistryAuth("registry.local:5000", "loc", "l", "")),
                parsed(CriRegistryConfig.parse(toml)));
    }

    @Test
    void anEmptyAuthTableIsAnEmptyCredential() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n";
        assertEquals(List.of(new RegistryAuth("ghcr.io", "", "", "")), parsed(CriRegistryConfig.parse(toml)));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            // unterminated string
            "[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]\n  password = 'hunter2-secret\n",
            // unquoted value
            "[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]\n  password = hunter2-secret\n",
            // bad escape inside the secret
            "[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]\n  password = \"hunter2\\q-secret\"\n",
            // duplicate key
            "[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]\n  password = 'hunter2-secret'\n"
                    + "  password = 'hunter2-secret'\n",
            // table defined twice
            "[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]\n  password = 'hunter2-secret'\n"
                    + "[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]\n  username = 'u'\n",
            // garbage after the value
            "## /etc/cri/conf.d/01-registries.part (sha256:ab12)\n\n[plugins.'io.containerd.cri.v1.images'.registry"
                    + ".configs.'ghcr.io'.auth]\n  password = 'hunter2-secret' hunter2-secret\n",
    })
    void malformedTomlFailsWithALocationAndNoSecret(String toml) {
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2");
        assertTrue(message.startsWith("malformed TOML at line "), message);
    }

    @Test
    void malformedTomlNamesTheLineAndAFixedReason() {
        String toml = "version = 3\n\n[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]\n"
                + "  password = 'hunter2-secret'\n  password = 'other'\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2", "other");
        // The duplicate is on line 5; Jackson reports where its lexer stood, which is the start of line 6.
        assertTrue(message.matches("malformed TOML at line [56], column \\d+: Duplicate key"), message);
    }

    @Test
    void badBase64FailsNamingTheHost() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  auth = 'hunter2!!not-base64'\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2");
        assertTrue(message.contains("ghcr.io") && message.contains("base64"), message);
    }

    /**
     * containerd decodes {@code auth} with Go's {@code base64.StdEncoding} (padding required, only line breaks
     * skipped; an error sends nothing): only the canonical padded form is read, every other form is a doubt naming
     * the key, without the value.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("nonCanonicalBase64")
    void anAuthThatIsNotCanonicalPaddedBase64IsADoubt(String form, String auth) {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  auth = \"" + auth + "\"\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2", auth.strip());
        assertTrue(message.contains("registry.configs.\"ghcr.io\".auth.auth")
                && message.contains("not canonical padded standard base64"), message);
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> nonCanonicalBase64() {
        String good = b64("deploy-bot:hunter2-x"); // 20 bytes: one pad character
        String two = b64("deploy-bot:hunter2"); // 18 bytes: no pad
        String one = b64("deploy-bot:hunter2-xy"); // 21 bytes: no pad
        String pad2 = b64("deploy-bot:hunter2-xyz"); // 22 bytes: two pad characters
        return java.util.stream.Stream.of(
                org.junit.jupiter.params.provider.Arguments.of("missing pad", good.replace("=", "")),
                org.junit.jupiter.params.provider.Arguments.of("one of two pads", pad2.substring(0, pad2.length() - 1)),
                org.junit.jupiter.params.provider.Arguments.of("a space inside", two.substring(0, 8) + " " + two.substring(8)),
                org.junit.jupiter.params.provider.Arguments.of("a leading space", " " + one),
                org.junit.jupiter.params.provider.Arguments.of("a tab inside", two.substring(0, 4) + "\\t" + two.substring(4)),
                org.junit.jupiter.params.provider.Arguments.of("a line break (Go skips it)",
                        two.substring(0, 4) + "\\n" + two.substring(4)),
                org.junit.jupiter.params.provider.Arguments.of("CR LF (Go skips them)", two + "\\r\\n"),
                org.junit.jupiter.params.provider.Arguments.of("URL alphabet", b64("??>:hunter2~~~").replace('+', '-')
                        .replace('/', '_')),
                org.junit.jupiter.params.provider.Arguments.of("unused bits set (Go's non-strict decoder accepts them)",
                        good.substring(0, good.length() - 2) + (char) (good.charAt(good.length() - 2) + 1) + "="),
                org.junit.jupiter.params.provider.Arguments.of("a pad in the middle", good + good),
                org.junit.jupiter.params.provider.Arguments.of("trailing garbage", two + "!"));
    }

    @Test
    void canonicalBase64OfEveryLengthIsRead() {
        for (String pass : List.of("p", "pw", "pwd", "pass")) {
            String toml = "[" + V2 + ".'ghcr.io'.auth]\n  auth = '" + b64("u:" + pass) + "'\n";
            assertEquals(List.of(new RegistryAuth("ghcr.io", "u", pass, "")), parsed(CriRegistryConfig.parse(toml)));
        }
    }

    @Test
    void authWithoutColonFailsNamingTheHost() {
        String toml = "[" + V1 + ".\"registry.local:5000\".auth]\n  auth = \"" + b64("hunter2-no-colon") + "\"\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2", b64("hunter2-no-colon"));
        assertTrue(message.contains("registry.local:5000") && message.contains("colon"), message);
    }

    @Test
    void authThatIsNotUtf8Fails() {
        byte[] latin1 = "user:p\u00e4ss".getBytes(StandardCharsets.ISO_8859_1);
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  auth = '" + Base64.getEncoder().encodeToString(latin1) + "'\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "p\u00e4ss");
        assertTrue(message.contains("ghcr.io") && message.contains("UTF-8"), message);
    }

    @Test
    void aNulInsideAFieldFails() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  username = \"dep\\u0000loy\"\n  password = 'hunter2'\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2");
        assertTrue(message.contains("username") && message.contains("NUL"), message);
        String viaAuth = "[" + V2 + ".'ghcr.io'.auth]\n  auth = '" + b64("u:hunter2\0") + "'\n";
        assertTrue(failedWithout(CriRegistryConfig.parse(viaAuth), "hunter2").contains("NUL"));
    }

    @Test
    void aNonStringFieldFailsNamingTheKey() {
        String toml = "[" + V2 + ".'ghcr.io'.auth]\n  username = 'u'\n  password = 424242\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "424242");
        assertEquals("plugins.\"io.containerd.cri.v1.images\".registry.configs.\"ghcr.io\".auth.password"
                + " is not a string", message);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "plugins = 'x'\n",
            "[plugins]\n'io.containerd.cri.v1.images' = 3\n",
            "[plugins.'io.containerd.cri.v1.images']\nregistry = 'x'\n",
            "[plugins.'io.containerd.cri.v1.images'.registry]\nconfigs = ['x']\n",
            "[plugins.'io.containerd.cri.v1.images'.registry.configs]\n'ghcr.io' = 'x'\n",
            "[plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io']\nauth = 'dXNlcjpodW50ZXIy'\n",
    })
    void aNonTableWhereATableBelongsFails(String toml) {
        String message = failedWithout(CriRegistryConfig.parse(toml), "dXNlcjpodW50ZXIy");
        assertTrue(message.endsWith(" is not a table"), message);
        assertTrue(message.startsWith("plugins"), message);
    }

    @Test
    void anEmptyHostKeyFails() {
        String toml = "[" + V2 + ".''.auth]\n  username = 'u'\n  password = 'hunter2'\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2");
        assertTrue(message.contains("no registry host"), message);
    }

    @Test
    void userInfoInAHostKeyIsNotRepeated() {
        String toml = "[" + V2 + ".'https://u:hunter2@ghcr.io/'.auth]\n  password = 42\n";
        String message = failedWithout(CriRegistryConfig.parse(toml), "hunter2");
        assertTrue(message.contains("\"ghcr.io\".auth.password"), message);
    }
}
