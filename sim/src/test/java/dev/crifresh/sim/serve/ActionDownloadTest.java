package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How action/run.sh gets the pinned coordinator when no jar is given: the release URL on the runner's GitHub
 * ({@code GITHUB_SERVER_URL}, here a {@link ReleaseServer} on loopback) of the action's own repository (derived
 * from the action's checkout path, as GITHUB_ACTION_REPOSITORY is empty in composite actions), the published
 * SHA-256 checked, the jar cached per version. Real curl, real HTTP, the real script. ActionScriptIT serves the
 * assets .ci/release-assets assembles, runs the downloaded coordinator and refuses a tampered one.
 *
 * <p>Threat model: the checksum catches a download corrupted or swapped on its way from the release; it does not
 * defend against a compromised release, which publishes its own checksum (as in fluxcd/flux2's action) — pin the
 * action by commit SHA for that.
 */
class ActionDownloadTest {
    private static final Path SCRIPT = ServeProcess.REPO.resolve("action/run.sh");
    private static final String PATH = "/acme/crifresh/releases/download/v0.1.0/crifresh-coordinator.jar";
    private static final byte[] JAR = "not really a jar".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    private Path release;
    private Path cache;
    private ReleaseServer server;

    @BeforeEach
    void release() throws Exception {
        release = Files.createDirectories(dir.resolve("release"));
        cache = dir.resolve("tool-cache");
        server = new ReleaseServer();
        server.publish("acme/crifresh", "0.1.0", release);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private record Run(int exit, String log, List<String> urls) {
    }

    private Run run(String version) throws Exception {
        Path log = dir.resolve("log-" + System.nanoTime());
        ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString()).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("INPUT_") || k.startsWith("GITHUB_"));
        Path javaBin = Path.of(ServeProcess.java()).getParent();
        env.put("PATH", javaBin + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("GITHUB_SERVER_URL", server.url());
        env.put("GITHUB_ACTION_PATH", "/home/runner/work/_actions/acme/crifresh/v0.1.0");
        env.put("RUNNER_TOOL_CACHE", cache.toString());
        env.put("RUNNER_TEMP", dir.toString());
        env.put("INPUT_COMMAND", "plan");
        env.put("INPUT_VERSION", version);
        env.put("INPUT_CREDENTIAL_FILE", "/nonexistent/config.json");
        Process p = pb.start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "run.sh did not finish");
        return new Run(p.exitValue(), Files.readString(log), server.requests());
    }

    private void publish(byte[] jar, String sha256) throws Exception {
        Files.write(release.resolve("crifresh-coordinator.jar"), jar);
        Files.writeString(release.resolve("crifresh-coordinator.jar.sha256"), sha256 + "  crifresh-coordinator.jar\n");
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void thePinnedReleaseOfTheActionsRepositoryIsVerifiedCachedAndRun() throws Exception {
        publish(JAR, sha256(JAR));
        Run first = run("v0.1.0");
        assertEquals(List.of("GET " + PATH, "GET " + PATH + ".sha256"), first.urls(), first.log());
        assertTrue(first.log().contains("Downloading " + server.url() + PATH), first.log());
        Path cached = cache.resolve("crifresh/0.1.0/crifresh-coordinator.jar");
        assertTrue(Files.isRegularFile(cached), first.log());
        assertTrue(first.log().contains(" -jar " + cached + " plan "), first.log());
        // not a real jar: java refuses it, no report, the step fails with java's message
        assertEquals(1, first.exit(), first.log());
        assertTrue(first.log().contains("::error title=crifresh plan::crifresh-coordinator exited 1 without a report"), first.log());

        Run second = run("0.1.0");
        assertEquals(List.of("GET " + PATH, "GET " + PATH + ".sha256"), second.urls(), "cached: no second download");
        assertTrue(second.log().contains(" -jar " + cached + " plan "), second.log());
    }

    @Test
    void aChecksumFileThatIsNotASha256IsRefused() throws Exception {
        Files.write(release.resolve("crifresh-coordinator.jar"), JAR);
        Files.writeString(release.resolve("crifresh-coordinator.jar.sha256"), "<html>not found</html>\n");
        Run r = run("0.1.0");
        assertEquals(2, r.exit(), r.log());
        assertTrue(r.log().contains("::error title=crifresh::checksum mismatch, not running it: the SHA-256 of " + server.url() + PATH
                + " is " + sha256(JAR) + ", but " + server.url() + PATH + ".sha256 says <html>not"), r.log());
        assertFalse(Files.exists(cache.resolve("crifresh/0.1.0/crifresh-coordinator.jar")), "nothing cached");
        assertFalse(r.log().contains(" -jar "), "nothing run");
    }

    @Test
    void aMissingReleaseIsAClearError() throws Exception {
        Run r = run("9.9.9");
        assertEquals(2, r.exit(), r.log());
        assertTrue(r.log().contains("::error title=crifresh::cannot download "
                + server.url() + PATH.replace("0.1.0", "9.9.9")), r.log());
    }
}
