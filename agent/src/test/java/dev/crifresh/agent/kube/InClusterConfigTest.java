package dev.crifresh.agent.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InClusterConfigTest {
    @TempDir
    Path dir;

    @Test
    void readsTheServiceAddressAndTheServiceAccountFiles() throws Exception {
        Files.writeString(dir.resolve("token"), "t");
        InClusterConfig c = InClusterConfig.fromEnvironment(Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1",
                "KUBERNETES_SERVICE_PORT", "443", InClusterConfig.SERVICE_ACCOUNT_DIR_ENV, dir.toString())).orElseThrow();
        assertEquals(new InClusterConfig("10.96.0.1", 443, dir.resolve("ca.crt"), dir.resolve("token")), c);
    }

    @Test
    void theServiceAccountDirectoryDefaultsToTheKubeletsMountPoint() {
        assertEquals(Path.of("/var/run/secrets/kubernetes.io/serviceaccount"), InClusterConfig.SERVICE_ACCOUNT_DIR);
    }

    @Test
    void outsideAPodOrWithoutATokenThereIsNoInClusterConfig() throws Exception {
        assertTrue(InClusterConfig.fromEnvironment(Map.of()).isEmpty());
        assertTrue(InClusterConfig.fromEnvironment(Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1")).isEmpty());
        assertTrue(InClusterConfig.fromEnvironment(Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1",
                "KUBERNETES_SERVICE_PORT", "443", InClusterConfig.SERVICE_ACCOUNT_DIR_ENV, dir.toString())).isEmpty());
    }

    @Test
    void aPortThatIsNotANumberIsNamed() throws Exception {
        Files.writeString(dir.resolve("token"), "t");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> InClusterConfig.fromEnvironment(
                Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "https",
                        InClusterConfig.SERVICE_ACCOUNT_DIR_ENV, dir.toString())));
        assertTrue(e.getMessage().contains("https"));
    }
}
