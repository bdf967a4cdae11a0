package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.registry.DockerConfig;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.registry.RegistryParse;
import dev.crifresh.sim.scenario.Credential;
import dev.crifresh.sim.base.SimKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files serve writes are what the coordinator and Prometheus read, and they are gone after close. */
class ServeFilesTest {
    @TempDir
    Path dir;

    @Test
    void writesWhatTheToolsReadAndRemovesOnlyWhatItCreated() throws Exception {
        Path own = Files.createDirectories(dir.resolve("existing"));
        Files.writeString(own.resolve("mine.txt"), "keep");
        ServeFiles files = new ServeFiles(dir.resolve("a/b/kubeconfig"), own.resolve("targets.json"));
        TrustBundle trust = SimKeys.generate().trust();
        files.writeTrust(trust);
        files.writeCredential("ghcr.io", new Credential("deploy-bot", "token-v3"));
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("cp-1", 41001);
        ports.put("worker-a", 41002);
        files.writeTargets(ports);
        files.writeKubeconfig("http://127.0.0.1:40000");

        assertTrue(Files.readString(dir.resolve("a/b/kubeconfig")).contains("server: http://127.0.0.1:40000"));
        assertEquals(trust.keysByKid().keySet(), TrustBundle.parse(Files.readString(dir.resolve("a/b/trust/jwks.json")),
                Files.readAllBytes(dir.resolve("a/b/trust/fingerprint.key"))).keysByKid().keySet());
        RegistryParse parsed = DockerConfig.parse(Files.readString(dir.resolve("a/b/credential.json")));
        RegistryAuth auth = ((RegistryParse.Parsed) parsed).credentials().get(0);
        assertEquals(new RegistryAuth("ghcr.io", "deploy-bot", "token-v3", ""), auth);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dir.resolve("a/b/trust/fingerprint.key"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dir.resolve("a/b/credential.json"))));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                own.resolve("targets.json"))), "Prometheus runs as another user");
        String targets = Files.readString(own.resolve("targets.json"));
        assertTrue(targets.contains("\"127.0.0.1:41002\"") && targets.contains("\"worker-a\""), targets);

        files.close();
        assertFalse(Files.exists(dir.resolve("a")), "the folders serve created are gone");
        assertFalse(Files.exists(own.resolve("targets.json")));
        assertEquals("keep", Files.readString(own.resolve("mine.txt")), "a folder that existed stays, with its files");
        files.close();
    }
}
