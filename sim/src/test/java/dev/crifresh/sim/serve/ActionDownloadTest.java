package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How action/run.sh gets the pinned coordinator when no jar is given: the release URL of the action's own
 * repository (derived from the action's checkout path, as GITHUB_ACTION_REPOSITORY is empty in composite
 * actions), the published SHA-256 checked, the jar cached per version. GitHub is not reachable from a test:
 * {@code curl} is a stand-in on PATH that serves files from a directory standing for the release and logs
 * the URLs asked for; everything else is the real script.
 *
 * <p>Threat model: the checksum catches a download corrupted or swapped on its way from the release; it does not
 * defend against a compromised release, which publishes its own checksum (as in fluxcd/flux2's action) — pin the
 * action by commit SHA for that.
 */
class ActionDownloadTest {
    private static final Path SCRIPT = ServeProcess.REPO.resolve("action/run.sh");
    private static final String URL = "https://github.com/acme/crifresh/releases/download/v0.1.0/crifresh-coordinator.jar";
    private static final byte[] JAR = "not really a jar".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    private Path release;
    private Path cache;

    @BeforeEach
    void fakeRelease() throws Exception {
        release = Files.createDirectories(dir.resolve("release"));
        cache = dir.resolve("tool-cache");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path curl = bin.resolve("curl");
        Files.writeString(curl, """
                #!/usr/bin/env bash
                out=""; url=""
                while (($#)); do
                  case "$1" in
                    -o) out=$2; shift 2 ;;
                    --retry|--connect-timeout) shift 2 ;;
                    -*) shift ;;
                    *) url=$1; shift ;;
                  esac
                done
                echo "$url" >> "$CURL_LOG"
                f="$RELEASE_DIR/${url##*/}"
                [[ -f "$f" ]] || exit 22
                cp "$f" "$out"
                """);
        Files.setPosixFilePermissions(curl, PosixFilePermissions.fromString("rwxr-xr-x"));
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
        env.put("PATH", dir.resolve("bin") + ":" + javaBin + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("GITHUB_ACTION_PATH", "/home/runner/work/_actions/acme/crifresh/v0.1.0");
        env.put("RUNNER_TOOL_CACHE", cache.toString());
        env.put("RUNNER_TEMP", dir.toString());
        env.put("RELEASE_DIR", release.toString());
        env.put("CURL_LOG", dir.resolve("curl.log").toString());
        env.put("INPUT_COMMAND", "plan");
        env.put("INPUT_VERSION", version);
        env.put("INPUT_CREDENTIAL_FILE", "/nonexistent/config.json");
        Process p = pb.start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "run.sh did not finish");
        Path curlLog = dir.resolve("curl.log");
        return new Run(p.exitValue(), Files.readString(log), Files.exists(curlLog) ? Files.readAllLines(curlLog) : List.of());
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
        assertEquals(List.of(URL, URL + ".sha256"), first.urls(), first.log());
        Path cached = cache.resolve("crifresh/0.1.0/crifresh-coordinator.jar");
        assertTrue(Files.isRegularFile(cached), first.log());
        assertTrue(first.log().contains(" -jar " + cached + " plan "), first.log());
        // not a real jar: java refuses it, no report, the step fails with java's message
        assertEquals(1, first.exit(), first.log());
        assertTrue(first.log().contains("::error title=crifresh plan::crifresh-coordinator exited 1 without a report"), first.log());

        Run second = run("0.1.0");
        assertEquals(List.of(URL, URL + ".sha256"), second.urls(), "cached: no second download");
        assertTrue(second.log().contains(" -jar " + cached + " plan "), second.log());
    }

    @Test
    void aJarThatDoesNotMatchThePublishedChecksumIsRefused() throws Exception {
        publish(JAR, sha256("another jar".getBytes(StandardCharsets.UTF_8)));
        Run r = run("0.1.0");
        assertEquals(2, r.exit(), r.log());
        assertTrue(r.log().contains("::error title=crifresh::SHA-256 of " + URL + " is " + sha256(JAR) + ", the release says "
                + sha256("another jar".getBytes(StandardCharsets.UTF_8))), r.log());
        assertFalse(Files.exists(cache.resolve("crifresh/0.1.0/crifresh-coordinator.jar")), "nothing cached");
        assertFalse(r.log().contains(" -jar "), "nothing run");
    }

    @Test
    void aMissingReleaseIsAClearError() throws Exception {
        Run r = run("9.9.9");
        assertEquals(2, r.exit(), r.log());
        assertTrue(r.log().contains("::error title=crifresh::cannot download "
                + URL.replace("0.1.0", "9.9.9")), r.log());
    }
}
