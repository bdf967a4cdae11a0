package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RegistryAuthTest {

    @Test
    void toStringShowsTheHostButNoSecretPart() {
        RegistryAuth auth = new RegistryAuth("ghcr.io", "deploy-bot", "token-v2", "idtok-9f8e");
        String text = auth.toString();
        assertTrue(text.contains("ghcr.io"), text);
        assertFalse(text.contains("token-v2"), text);
        assertFalse(text.contains("deploy-bot"), text);
        assertFalse(text.contains("idtok-9f8e"), text);
        assertTrue(text.contains("password=<set>"), text);
    }

    @Test
    void toStringOfParsedCredentialsShowsNoPassword() {
        RegistryParse parsed = CriRegistryConfig.parse("""
                [plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]
                  password = 'token-v2'
                  username = 'deploy-bot'
                """);
        String text = parsed.toString();
        assertTrue(text.contains("ghcr.io"), text);
        assertFalse(text.contains("token-v2"), text);
    }

    @Test
    void rejectsNullParts() {
        assertThrows(NullPointerException.class, () -> new RegistryAuth("ghcr.io", "u", null, ""));
        assertThrows(NullPointerException.class, () -> new RegistryAuth(null, "u", "p", ""));
    }
}
