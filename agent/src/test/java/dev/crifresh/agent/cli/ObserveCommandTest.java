package dev.crifresh.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.FakeProc;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ObserveCommandTest {
    private static final String PASSWORD = "hunter2-very-secret";

    @TempDir
    Path dir;
    private Path proc;
    private Path host;
    private Path key;

    @BeforeEach
    void node() throws Exception {
        proc = dir.resolve("proc");
        host = dir.resolve("host");
        // Config rendered now (its mtime says 600 s ago, its real ctime is now); then, as /proc tells it,
        // booted 1000 s ago and containerd started 999.8 s after boot: after the config's last change.
        new TalosFiles(host).writeAll(PASSWORD, Instant.now().minusSeconds(600));
        Instant rendered = Instant.now();
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(5), "time passes",
                () -> Instant.now().isAfter(rendered.plusMillis(400)));
        new FakeProc(proc).bootId("6f1e0c0a-0000-4000-8000-000000000001").uptime(Duration.ofSeconds(1000))
                .process(4242, FakeContainerd.TALOS_CRI, 99_980);
        key = Files.write(dir.resolve("fingerprint.key"), "0123456789abcdef0123456789abcdef".getBytes());
    }

    @Test
    void printsOneJsonObjectWithTheEvidenceAndNoCredential() throws Exception {
        CliHarness r = CliHarness.run("observe", "--proc-root", proc.toString(), "--host-root", host.toString(),
                "--fingerprint-key", key.toString());
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.out().contains(PASSWORD), "the password must never be printed");
        assertFalse(r.err().contains(PASSWORD));
        JsonNode json = JsonMapper.builder().build().readTree(r.out());
        assertEquals("fresh", json.get("verdict").asString());
        assertEquals("ContainerdStartedAfterConfig", json.get("reason").asString());
        assertEquals("ordering", json.get("proof").asString());
        assertEquals("6f1e0c0a-0000-4000-8000-000000000001", json.get("bootId").asString());
        assertEquals(4242, json.get("containerd").get("pid").asLong());
        assertEquals(99_980, json.get("containerd").get("startTicks").asLong());
        assertEquals("/bin/containerd", json.get("containerd").get("cmdline").get(0).asString());
        assertTrue(json.get("config").get("digest").asString().startsWith("sha256:"));
        assertEquals(3, json.get("config").get("files").size());
        assertEquals(TalosFiles.REGISTRIES_PART, json.get("config").get("files").get(0).get("path").asString());
        // The change stamps the ordering used: the real ctime is newer than the mtime set 600 s back.
        assertEquals("ctime", json.get("config").get("files").get(0).get("changedBy").asString());
        assertEquals(List.of("/etc/cri", "/etc/cri/conf.d"), json.get("config").get("directories").valueStream()
                .map(d -> d.get("path").asString()).toList());
        assertEquals(0, json.get("config").get("unwatchedImports").size());
        JsonNode socket = json.get("containerd").get("socket");
        assertEquals("/run/containerd/containerd.sock", socket.get("path").asString());
        assertEquals("no such socket", socket.get("error").asString());
        assertEquals("no-witness", socket.get("clock").asString());
        assertEquals(CredentialFingerprint.of(Files.readAllBytes(key),
                        new RegistryAuth("ghcr.io", "deploy-bot", PASSWORD, "")),
                json.get("registries").get("ghcr.io").asString());
    }

    @Test
    void showsContainerdsSocketAndWhatItSaysAboutTheClock() throws Exception {
        // /proc/uptime here is a file that stands still while the real clock runs on: containerd's start
        // (990.5 s after a boot 1000 s before the read) then lies 9.5 s before the read, and the socket bound
        // now lands in [start, start + 9.5 s] whatever the read's delay up to 9.5 s: no clock step.
        dev.crifresh.agent.testing.UnixSockets.bind(host.resolve("run/containerd/containerd.sock"));
        new FakeProc(proc).bootId("6f1e0c0a-0000-4000-8000-000000000001").uptime(Duration.ofSeconds(1000))
                .process(4242, FakeContainerd.TALOS_CRI, 99_050);
        CliHarness r = CliHarness.run("observe", "--proc-root", proc.toString(), "--host-root", host.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode socket = JsonMapper.builder().build().readTree(r.out()).get("containerd").get("socket");
        assertEquals("agrees", socket.get("clock").asString(), socket.toString());
        assertEquals(socket.get("mtime").asString(), socket.get("ctime").asString());
    }

    @Test
    void withoutAKeyThereAreNoRegistriesAndStaleIsReportedWithItsReason() throws Exception {
        new TalosFiles(host).rotate("another-secret"); // written now
        // containerd started 10 s before the uptime was read: before this write, however slow the run.
        new FakeProc(proc).process(4242, FakeContainerd.TALOS_CRI, 99_000);
        CliHarness r = CliHarness.run("observe", "--proc-root", proc.toString(), "--host-root", host.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode json = JsonMapper.builder().build().readTree(r.out());
        assertEquals("stale", json.get("verdict").asString());
        assertEquals("ConfigChangedAfterContainerdStart", json.get("reason").asString());
        assertFalse(json.has("registries"));
        assertFalse(r.out().contains("another-secret"));
    }

    @Test
    void reportsUnknownWhenNoContainerdRuns() throws Exception {
        new FakeProc(proc).remove(4242);
        CliHarness r = CliHarness.run("observe", "--proc-root", proc.toString(), "--host-root", host.toString());
        JsonNode json = JsonMapper.builder().build().readTree(r.out());
        assertEquals("unknown", json.get("verdict").asString());
        assertEquals("ContainerdNotFound", json.get("reason").asString());
        assertTrue(json.get("containerd").isNull());
    }

    /**
     * Issue 36's L1: Talos' cri.toml also holds a legacy io.containerd.grpc.v1.cri registry with another credential.
     * containerd 2.1 and 2.2 hold the images plugin's, 2.3 the legacy one (its 3 → 4 migration moves it), so without
     * the generation the reading is unknown, naming the file and the shape; a generation named reads exactly.
     */
    @Test
    void aLegacyRegistryIsUnknownUntilTheGenerationIsNamed() throws Exception {
        new TalosFiles(host).write(TalosFiles.CRI_TOML, TalosFiles.criToml(PASSWORD)
                + "[plugins.'io.containerd.grpc.v1.cri'.registry.configs.'ghcr.io'.auth]\n"
                + "username = 'deploy-bot'\npassword = 'the-old-one'\n", Instant.now().minusSeconds(600));
        Instant written = Instant.now();
        dev.crifresh.mockapi.testing.Poll.until(Duration.ofSeconds(5), "time passes",
                () -> Instant.now().isAfter(written.plusMillis(400)));
        JsonMapper json = JsonMapper.builder().build();
        byte[] k = Files.readAllBytes(key);
        String current = CredentialFingerprint.of(k, new RegistryAuth("ghcr.io", "deploy-bot", PASSWORD, ""));
        String old = CredentialFingerprint.of(k, new RegistryAuth("ghcr.io", "deploy-bot", "the-old-one", ""));
        List<String> base = List.of("observe", "--proc-root", proc.toString(), "--host-root", host.toString(),
                "--fingerprint-key", key.toString());

        CliHarness auto = CliHarness.run(base.toArray(String[]::new));
        assertEquals(0, auto.exit(), auto.err());
        JsonNode unknown = json.readTree(auto.out());
        assertEquals("unknown", unknown.get("verdict").asString(), auto.out());
        assertEquals("ConfigUnreadable", unknown.get("reason").asString());
        assertTrue(unknown.get("message").asString().contains(TalosFiles.CRI_TOML + ": a version 3 file with a"
                + " registry in the CRI plugin's table (io.containerd.grpc.v1.cri)"), unknown.get("message").asString());
        assertFalse(auto.out().contains("the-old-one") || auto.out().contains(PASSWORD));

        for (String generation : List.of("2.1", "2.2", "2.3")) {
            List<String> args = new java.util.ArrayList<>(base);
            args.addAll(List.of("--containerd-generation", generation));
            CliHarness r = CliHarness.run(args.toArray(String[]::new));
            assertEquals(0, r.exit(), r.err());
            JsonNode read = json.readTree(r.out());
            assertEquals("fresh", read.get("verdict").asString(), generation + ": " + r.out());
            assertEquals(generation.equals("2.3") ? old : current, read.get("registries").get("ghcr.io").asString(),
                    "containerd " + generation + " holds " + (generation.equals("2.3") ? "the legacy" : "the images")
                            + " credential");
        }
        CliHarness bad = CliHarness.run("observe", "--proc-root", proc.toString(), "--host-root", host.toString(),
                "--containerd-generation", "2.4");
        assertEquals(2, bad.exit());
        assertEquals(1, bad.err().strip().lines().count(), bad.err());
        assertTrue(bad.err().contains("--containerd-generation") && bad.err().contains("'2.4' is not a containerd"
                + " generation (one of auto, one, two, 2.1, 2.2, 2.3; containerd 2.0 is 'two')"), bad.err());
    }

    @Test
    void badRootsAndKeysAreOneLineErrors() {
        CliHarness r = CliHarness.run("observe", "--proc-root", dir.resolve("nope").toString());
        assertEquals(2, r.exit());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("--proc-root"), r.err());
        CliHarness k = CliHarness.run("observe", "--proc-root", proc.toString(), "--host-root", host.toString(),
                "--fingerprint-key", dir.resolve("absent").toString());
        assertEquals(2, k.exit());
        assertTrue(k.err().contains("--fingerprint-key") && k.err().contains("absent"), k.err());
    }
}
