package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Key spellings and TOML forms: containerd 2.x matches a key to a struct field case-insensitively (real 2.1.9, 2.2.7
 * and 2.3.4 dump {@code Username}, {@code Registry}, {@code Version} as the fields), so a case variant of a field is
 * a doubt at every level; map keys and keys that are no field are read as the agent reads them; TOML forms the
 * agent's parser and go-toml might read differently are refused.
 */
class ContainerdKeysTest {
    private static final String IMAGES = "plugins.'io.containerd.cri.v1.images'";
    private static final String AUTH = IMAGES + ".registry.configs.'ghcr.io'.auth";

    /** {@code [table]} with a {@code key = value} line, after {@code version = 3}. */
    private static String file(String table, String line) {
        return "version = 3\n[" + AUTH + "]\nusername = 'u'\npassword = 'hunter2'\n"
                + (table == null ? line + "\n" : "[" + table + "]\n" + line + "\n");
    }

    static Stream<Arguments> caseVariants() {
        return Stream.of(
                Arguments.of("top-level Version", "Version = 3\n", "Version", "version"),
                Arguments.of("top-level Imports", "Imports = ['/x.toml']\n", "Imports", "imports"),
                Arguments.of("top-level Plugins", "[Plugins.x]\ny = 1\n", "Plugins", "plugins"),
                Arguments.of("top-level ROOT", "ROOT = '/var/lib/x'\n", "ROOT", "root"),
                Arguments.of("images plugin Registry", file(IMAGES + ".Registry.configs.'ghcr.io'.auth", "username = 'x'"),
                        "Registry", "registry"),
                Arguments.of("images plugin Image_Pull_Progress_Timeout", file(IMAGES, "Image_Pull_Progress_Timeout = '1m'"),
                        "Image_Pull_Progress_Timeout", "image_pull_progress_timeout"),
                Arguments.of("registry Configs", file(IMAGES + ".registry.Configs.'ghcr.io'.auth", "username = 'x'"),
                        "Configs", "configs"),
                Arguments.of("registry Auths", file(IMAGES + ".registry.Auths.'ghcr.io'", "username = 'x'"),
                        "Auths", "auths"),
                Arguments.of("registry Config_Path", file(IMAGES + ".registry", "Config_Path = '/etc/x'"),
                        "Config_Path", "config_path"),
                Arguments.of("host config Auth", file(IMAGES + ".registry.configs.'quay.io'.Auth", "username = 'x'"),
                        "Auth", "auth"),
                Arguments.of("host config TLS", file(IMAGES + ".registry.configs.'quay.io'.TLS", "ca_file = '/x'"),
                        "TLS", "tls"),
                Arguments.of("TLS CA_File", file(IMAGES + ".registry.configs.'quay.io'.tls", "CA_File = '/x'"),
                        "CA_File", "ca_file"),
                Arguments.of("auth Username (issue 42's example)", file(null, "Username = 'user'\nPassword = 'OLD'"),
                        "Username", "username"),
                Arguments.of("auth Password", file(null, "PASSWORD = 'x'"), "PASSWORD", "password"),
                Arguments.of("auth IdentityToken", file(null, "IdentityToken = 'x'"), "IdentityToken", "identitytoken"),
                Arguments.of("auth Auth", file(null, "Auth = 'dTpw'"), "Auth", "auth"),
                Arguments.of("auths entry Username",
                        file(IMAGES + ".registry.auths.'quay.io'", "Username = 'x'"), "Username", "username"),
                Arguments.of("mirror Endpoint", file(IMAGES + ".registry.mirrors.'quay.io'", "Endpoint = ['https://x']"),
                        "Endpoint", "endpoint"),
                Arguments.of("legacy grpc.v1.cri Registry",
                        file("plugins.'io.containerd.grpc.v1.cri'.Registry", "config_path = '/x'"), "Registry", "registry"),
                Arguments.of("short cri Registry", "[plugins.cri.Registry]\nconfig_path = '/x'\n", "Registry", "registry"),
                Arguments.of("Go's ToLower maps U+0130 to i", "\"\u0130mports\" = []\n", "\u0130mports", "imports"),
                Arguments.of("Go's ToLower maps the Kelvin sign to k", "[" + AUTH + "]\n\"\u212Aey\" = 1\n"
                        + "[" + IMAGES + ".registry.configs.'quay.io'.tls]\n\"\u212Aey_file\" = '/x'\n",
                        "\u212Aey_file", "key_file"),
                Arguments.of("dotted keys", "version = 3\nplugins.'io.containerd.cri.v1.images'.registry.configs"
                        + ".'ghcr.io'.auth.Username = 'u'\n", "Username", "username"),
                Arguments.of("an inline table", "version = 3\n[" + IMAGES + ".registry.configs]\n'ghcr.io' = { auth ="
                        + " { Password = 'p' } }\n", "Password", "password"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("caseVariants")
    void aKeyThatDiffersFromAFieldOnlyInCaseIsADoubt(String name, String toml, String key, String field) {
        ContainerdConfigFile.Failed f = assertInstanceOf(ContainerdConfigFile.Failed.class,
                ContainerdConfigFile.parse(toml), name);
        assertTrue(f.message().contains("differs only in case from containerd's field " + field), f.message());
        assertTrue(f.message().contains(key), f.message());
        assertFalse(f.message().contains("hunter2") || f.message().contains("OLD"), f.message());
    }

    static Stream<Arguments> readAlike() {
        return Stream.of(
                Arguments.of("a key that is no field", file(null, "user_name = 'x'\nTOKEN = 'y'")),
                Arguments.of("a plugin id in another case is another plugin",
                        file("plugins.'IO.containerd.cri.v1.images'.Registry", "Config_Path = '/x'")),
                Arguments.of("a registry host key is data", file(IMAGES + ".registry.configs.'Auth'.auth", "username = 'x'")),
                Arguments.of("a quoted key", "\"version\" = 3\n[" + AUTH + "]\n\"username\" = 'u'\n'password' = 'hunter2'\n"),
                Arguments.of("an escaped key", "version = 3\n[" + AUTH + "]\n\"\\u0075sername\" = 'u'\npassword = 'hunter2'\n"),
                Arguments.of("dotted keys", "version = 3\n" + AUTH + ".username = 'u'\n" + AUTH + ".password = 'hunter2'\n"),
                Arguments.of("spaces around the dots", "version = 3\n[ plugins . 'io.containerd.cri.v1.images' . registry"
                        + " . configs . 'ghcr.io' . auth ]\nusername = 'u'\npassword = 'hunter2'\n"),
                Arguments.of("inline tables", "version = 3\n[" + IMAGES + ".registry.configs]\n'ghcr.io' = { auth = {"
                        + " username = 'u', password = 'hunter2' } }\n"),
                Arguments.of("a parent table after its child", "version = 3\n[" + AUTH + "]\nusername = 'u'\n"
                        + "password = 'hunter2'\n[" + IMAGES + "]\nsnapshotter = 'native'\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readAlike")
    void formsContainerdAndTheAgentReadAlike(String name, String toml) {
        ContainerdConfigFile.Parsed p = assertInstanceOf(ContainerdConfigFile.Parsed.class,
                ContainerdConfigFile.parse(toml), name);
        assertEquals(3, p.version(), name);
        assertEquals(List.of(new RegistryAuth("ghcr.io", "u", "hunter2", "")),
                p.credentials().stream().filter(a -> a.host().equals("ghcr.io")).toList(), name);
    }

    static Stream<Arguments> refusedForms() {
        return Stream.of(
                Arguments.of("a table defined twice", "[" + AUTH + "]\nusername = 'u'\n[" + AUTH + "]\npassword = 'p'\n"),
                Arguments.of("a table defined twice, quoted differently", "[plugins.a]\nx = 1\n[plugins.\"a\"]\ny = 1\n"),
                Arguments.of("a duplicate key", "version = 3\nversion = 3\n"),
                Arguments.of("a duplicate key, quoted", "[" + AUTH + "]\nusername = 'u'\n\"username\" = 'v'\n"),
                Arguments.of("dotted keys extending a table header", "[" + AUTH + "]\nusername = 'u'\n[" + IMAGES
                        + ".registry.configs.'ghcr.io']\nauth.password = 'p'\n"),
                Arguments.of("a header extending dotted keys", "[" + IMAGES + ".registry.configs.'ghcr.io']\nauth.username"
                        + " = 'u'\n[" + AUTH + "]\npassword = 'p'\n"),
                Arguments.of("a header extending an inline table", "[" + IMAGES + ".registry.configs]\n'ghcr.io' = {"
                        + " auth = { username = 'u' } }\n[" + AUTH + "]\npassword = 'p'\n"),
                Arguments.of("dotted keys extending an inline table", "[" + IMAGES + ".registry.configs]\n'ghcr.io' = {"
                        + " auth = { username = 'u' } }\n'ghcr.io'.auth.password = 'p'\n"),
                Arguments.of("an array of tables over a table", "[[plugins]]\nx = 1\n[plugins]\n"),
                Arguments.of("a byte-order mark (2.x refuses it)", "\uFEFFversion = 3\n"),
                Arguments.of("a float version", "version = 3.0\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedForms")
    void formsTheAgentCannotShowAreReadAlikeAreADoubt(String name, String toml) {
        ContainerdConfigFile.Failed f = assertInstanceOf(ContainerdConfigFile.Failed.class,
                ContainerdConfigFile.parse(toml), name);
        assertFalse(f.message().contains("'p'"), f.message());
    }
}
