package dev.crifresh.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.expire.ExpirySettings;
import dev.crifresh.common.attest.Ed25519Keys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code run}'s flags: defaults, parsing, and one-line errors with exit 2 for every user mistake. */
class RunFlagsTest {
    @TempDir
    Path dir;
    Path signingKey;
    Path fingerprintKey;

    @BeforeEach
    void keys() throws Exception {
        signingKey = Files.writeString(dir.resolve("signing.key"), Ed25519Keys.signingKeyPem(Ed25519Keys.generate()));
        fingerprintKey = Files.write(dir.resolve("fingerprint.key"), new byte[32]);
        Files.createDirectories(dir.resolve("host"));
    }

    private List<String> valid(String... extra) {
        List<String> args = new ArrayList<>(List.of("run", "--node-name", "n1", "--signing-key", signingKey.toString(),
                "--fingerprint-key", fingerprintKey.toString(), "--proc-root", "/proc",
                "--host-root", dir.resolve("host").toString()));
        args.addAll(List.of(extra));
        return args;
    }

    private void assertUsageError(CliHarness r, String mustMention) throws Exception {
        assertEquals(AgentMain.USAGE, r.exit(), r.err());
        List<String> lines = r.err().strip().lines().toList();
        assertEquals(1, lines.size(), "one line expected, got:\n" + r.err());
        assertTrue(lines.get(0).startsWith("crifresh-agent: "), lines.get(0));
        assertTrue(lines.get(0).contains(mustMention), lines.get(0) + " should mention " + mustMention);
        assertFalse(r.err().contains("\tat "), "no stack trace");
        for (String keyLine : Files.readAllLines(signingKey)) {
            if (!keyLine.startsWith("-----")) {
                assertFalse(r.err().contains(keyLine), "never key material: " + r.err());
            }
        }
    }

    @Test
    void defaultsMatchTheDesign() {
        CommandLine cl = AgentMain.commandLine();
        CommandLine.ParseResult parsed = cl.parseArgs("run", "--node-name", "n1");
        RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
        assertEquals(Duration.ofMinutes(5), run.heartbeat);
        assertEquals(Duration.ofMinutes(15), run.validity);
        assertEquals(Duration.ofSeconds(5), run.procPoll);
        assertEquals(Duration.ofMillis(50), run.host.margin);
        assertEquals(9402, run.metricsPort);
        assertEquals(Path.of("/host"), run.host.hostRoot);
        assertEquals(Path.of("/proc"), run.host.procRoot);
        assertEquals(List.of("/etc/cri/containerd.toml", "/etc/cri/conf.d/cri.toml", "/etc/cri/conf.d/*.part"),
                run.host.watch);
        run.spec = parsed.subcommand().commandSpec();
        AgentSettings s = run.settings();
        AgentSettings d = AgentSettings.defaults("n1");
        assertEquals(d.watchGlobs(), s.watchGlobs());
        assertEquals(d.matcher().toString(), s.matcher().toString());
        assertEquals(d.rules(), s.rules());
        assertEquals(d.heartbeat(), s.heartbeat());
        assertEquals(d.validity(), s.validity());
        assertFalse(s.containerdIntrospection(), "the introspection check is opt-in");
    }

    @Test
    void theIntrospectionCheckIsTurnedOnByItsFlagInEveryForm() {
        for (List<String> on : List.of(List.of("--containerd-introspection"), List.of("--containerd-introspection=true"))) {
            List<String> args = new ArrayList<>(List.of("run", "--node-name", "n1"));
            args.addAll(on);
            CommandLine.ParseResult parsed = AgentMain.commandLine().parseArgs(args.toArray(String[]::new));
            RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
            run.spec = parsed.subcommand().commandSpec();
            assertTrue(run.settings().containerdIntrospection(), on.toString());
        }
        CommandLine.ParseResult off = AgentMain.commandLine().parseArgs("run", "--node-name", "n1",
                "--no-containerd-introspection");
        RunCommand run = (RunCommand) off.subcommand().commandSpec().userObject();
        run.spec = off.subcommand().commandSpec();
        assertFalse(run.settings().containerdIntrospection());
    }

    @Test
    void parsesEveryFlag() {
        CommandLine cl = AgentMain.commandLine();
        CommandLine.ParseResult parsed = cl.parseArgs("run", "--node-name", "w1", "--watch", "/a/*.toml",
                "--watch", "/b/c.toml,/b/d.toml", "--mode", "generic", "--margin", "200ms", "--heartbeat", "1m",
                "--validity", "3m", "--proc-poll", "1s", "--debounce", "20ms", "--metrics-port", "-1",
                "--containerd-match", "--address /x.sock");
        RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
        run.spec = parsed.subcommand().commandSpec();
        AgentSettings s = run.settings();
        assertEquals(List.of("/a/*.toml", "/b/c.toml", "/b/d.toml"), s.watchGlobs());
        assertFalse(s.rules().talosMode());
        assertEquals(Duration.ofMillis(200), s.rules().margin());
        assertEquals(Duration.ofMinutes(1), s.heartbeat());
        assertEquals(Duration.ofMinutes(3), s.validity());
        assertEquals(Duration.ofSeconds(1), s.procPoll());
        assertEquals(Duration.ofMillis(20), s.debounce());
        assertEquals(-1, s.metricsPort());
        assertEquals("--address /x.sock", s.matcher().toString());
    }

    @Test
    void theExpiryCandidateIsOffWithoutALeaseAndNamedByItsPod() {
        CommandLine.ParseResult off = AgentMain.commandLine().parseArgs("run", "--node-name", "n1");
        RunCommand run = (RunCommand) off.subcommand().commandSpec().userObject();
        run.spec = off.subcommand().commandSpec();
        assertEquals(null, run.expirySettings("n1"), "not a candidate unless --expiry-lease names a Lease");
        assertEquals(Duration.ofSeconds(20), run.expiryPeriod);
        assertEquals(Duration.ofSeconds(40), run.expiryLeaseDuration);

        CommandLine.ParseResult on = AgentMain.commandLine().parseArgs("run", "--node-name", "n1",
                "--expiry-lease", "crifresh/crifresh-agent-expiry", "--expiry-period", "5s",
                "--expiry-lease-duration", "15s", "--pod-name", "crifresh-agent-x7k2p");
        run = (RunCommand) on.subcommand().commandSpec().userObject();
        run.spec = on.subcommand().commandSpec();
        assertEquals(new ExpirySettings("crifresh", "crifresh-agent-expiry", "crifresh-agent-x7k2p",
                Duration.ofSeconds(5), Duration.ofSeconds(15)), run.expirySettings("n1"));
        run.podName = "";
        assertEquals("n1", run.expirySettings("n1").identity(), "without a pod name, the node's");
    }

    @Test
    void badExpiryValuesAreOneLineErrorsNamingTheFlag() throws Exception {
        assertUsageError(CliHarness.run(valid("--expiry-lease", "just-a-name").toArray(String[]::new)),
                "--expiry-lease");
        assertUsageError(CliHarness.run(valid("--expiry-lease", "ns/l", "--expiry-lease-duration", "30s")
                .toArray(String[]::new)), "two periods");
        assertUsageError(CliHarness.run(valid("--expiry-lease", "ns/l", "--expiry-lease-duration", "40500ms")
                .toArray(String[]::new)), "whole seconds");
    }

    @Test
    void badValuesAreOneLineErrorsNamingTheFlag() throws Exception {
        assertUsageError(CliHarness.run(valid("--margin", "5x").toArray(String[]::new)), "--margin");
        assertUsageError(CliHarness.run(valid("--mode", "ubuntu").toArray(String[]::new)), "--mode");
        assertUsageError(CliHarness.run(valid("--heartbeat", "0s").toArray(String[]::new)), "--heartbeat");
        assertUsageError(CliHarness.run(valid("--heartbeat", "20m").toArray(String[]::new)), "--validity");
        assertUsageError(CliHarness.run(valid("--metrics-port", "70000").toArray(String[]::new)), "--metrics-port");
        assertUsageError(CliHarness.run(valid("--metrics-port", "http").toArray(String[]::new)), "--metrics-port");
        assertUsageError(CliHarness.run(valid("--watch", "relative/x.toml").toArray(String[]::new)), "--watch");
        assertUsageError(CliHarness.run(valid("--containerd-match", "--address").toArray(String[]::new)),
                "--containerd-match");
        assertUsageError(CliHarness.run(valid("--no-such-flag").toArray(String[]::new)), "--no-such-flag");
        // The coordinator's policy limits, refused up front (issue 14).
        assertUsageError(CliHarness.run(valid("--margin", "19ms").toArray(String[]::new)), "20ms");
        assertUsageError(CliHarness.run(valid("--margin", "0ms").toArray(String[]::new)), "--margin");
        assertUsageError(CliHarness.run(valid("--validity", "61m").toArray(String[]::new)), "--validity");
        assertUsageError(CliHarness.run(valid("--containerd-match", "--label cri").toArray(String[]::new)),
                "--label");
        assertUsageError(CliHarness.run("run", "--signing-key", signingKey.toString()), "--node-name");
        assertUsageError(CliHarness.run(), "missing command");
    }

    @Test
    void unreadableOrWrongKeysAreOneLineErrorsNamingTheFile() throws Exception {
        Path missing = dir.resolve("absent.key");
        List<String> args = valid();
        args.set(args.indexOf(signingKey.toString()), missing.toString());
        assertUsageError(CliHarness.run(args.toArray(String[]::new)), missing.toString());

        Path garbage = Files.writeString(dir.resolve("garbage.key"), "-----BEGIN PRIVATE KEY-----\nnot base64\n");
        args = valid();
        args.set(args.indexOf(signingKey.toString()), garbage.toString());
        assertUsageError(CliHarness.run(args.toArray(String[]::new)), garbage.toString());

        Path shortKey = Files.write(dir.resolve("short.key"), new byte[8]);
        args = valid();
        args.set(args.indexOf(fingerprintKey.toString()), shortKey.toString());
        assertUsageError(CliHarness.run(args.toArray(String[]::new)), shortKey.toString());

        args = valid();
        int at = args.indexOf("--fingerprint-key");
        args.remove(at + 1);
        args.remove(at);
        assertUsageError(CliHarness.run(args.toArray(String[]::new)), "--fingerprint-key");

        args = valid();
        args.set(args.indexOf(dir.resolve("host").toString()), dir.resolve("nohost").toString());
        assertUsageError(CliHarness.run(args.toArray(String[]::new)), "--host-root");
    }
}
