package dev.crifresh.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** User mistakes with serve, reboot and rotate: one line naming the bad input, exit 2; no serve: exit 1. */
class ServeCliTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = SimMain.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void aRotationNeedsUserAndPassword() {
        Run r = run("rotate", "--kubeconfig", "whatever", "--credential", "deploy-bot");
        assertEquals(2, r.exit());
        assertEquals("crifresh-sim: --credential must be USER:PASSWORD, both non-empty\n", r.err());
        Run noPassword = run("rotate", "--kubeconfig", "whatever", "--credential", "deploy-bot:");
        assertEquals(2, noPassword.exit());
        assertEquals("crifresh-sim: --credential must be USER:PASSWORD, both non-empty\n", noPassword.err());
    }

    @Test
    void anUnreadableKubeconfigIsNamed() {
        Run r = run("reboot", "--kubeconfig", dir.resolve("missing").toString(), "worker-a");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("crifresh-sim: cannot read the kubeconfig " + dir.resolve("missing")), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void aKubeconfigWithoutServerIsNamed() throws Exception {
        Path config = Files.writeString(dir.resolve("config"), "apiVersion: v1\nkind: Config\ncurrent-context: x\n");
        Run r = run("reboot", "--kubeconfig", config.toString(), "worker-a");
        assertEquals(2, r.exit());
        assertEquals("crifresh-sim: the kubeconfig " + config + " names no server for its current context 'x'\n", r.err());
    }

    @Test
    void noServeAnsweringIsASimulationFailureNotAStackTrace() throws Exception {
        // a port nobody listens on: bind one, learn it, close it
        int port;
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path config = Files.writeString(dir.resolve("config"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                users: [{name: u, user: {}}]
                """.formatted(port));
        Run r = run("reboot", "--kubeconfig", config.toString(), "worker-a");
        assertEquals(1, r.exit());
        assertTrue(r.err().startsWith("crifresh-sim: the simulation failed: no simulated cluster answers at http://127.0.0.1:"
                + port), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void serveRejectsAPortOutOfRange() {
        Run r = run("serve", "--port", "70000", "--kubeconfig", dir.resolve("k").toString());
        assertEquals(2, r.exit());
        assertEquals("crifresh-sim: --port and --metrics-port must be 0..65535\n", r.err());
    }

    @Test
    void serveRejectsAgentLifetimesTheAgentWouldRefuse() {
        Run r = run("serve", "--agent-validity", "5s", "--agent-heartbeat", "5s", "--kubeconfig", dir.resolve("k").toString());
        assertEquals(2, r.exit());
        assertEquals("crifresh-sim: --agent-heartbeat 5s, --agent-validity 5s: the agents' validity must be longer than"
                + " their heartbeat, or the attestation expires between heartbeats\n", r.err());
        Run tooLong = run("serve", "--agent-validity", "2h", "--kubeconfig", dir.resolve("k").toString());
        assertEquals(2, tooLong.exit());
        assertTrue(tooLong.err().contains("at most 1h"), tooLong.err());
        Run notADuration = run("serve", "--agent-validity", "soon", "--kubeconfig", dir.resolve("k").toString());
        assertEquals(2, notADuration.exit());
        assertTrue(notADuration.err().contains("--agent-validity"), notADuration.err());
        assertFalse(Files.exists(dir.resolve("k")), "nothing written");
    }

    @Test
    void hangNamesItsKubeconfigAndNodeErrorsLikeReboot() throws Exception {
        Run r = run("hang", "--kubeconfig", dir.resolve("missing").toString(), "worker-a");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("crifresh-sim: cannot read the kubeconfig " + dir.resolve("missing")), r.err());
        Path config = Files.writeString(dir.resolve("config"), "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
                + "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\n"
                + "contexts: [{name: x, context: {cluster: c}}]\n");
        Run slash = run("hang", "--kubeconfig", config.toString(), "a/b");
        assertEquals(2, slash.exit());
        assertEquals("crifresh-sim: not a node name: 'a/b'\n", slash.err());
    }

    @Test
    void aScenarioThatIsADirectoryIsNamedExit2() {
        Run r = run("scenario", dir.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("crifresh-sim: " + dir + ": cannot read: is a directory, not a scenario file\n", r.err());
        Run serve = run("serve", "--kubeconfig", dir.resolve("k/kubeconfig").toString(), dir.toString());
        assertEquals(2, serve.exit(), serve.err());
        assertEquals("crifresh-sim: " + dir + ": cannot read: is a directory, not a scenario file\n", serve.err());
    }

    @Test
    void aBusyPortIsNamedExit2AndNothingIsLeftBehind() throws Exception {
        try (var busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            int port = busy.getLocalPort();
            Path kubeconfig = dir.resolve("sim/kubeconfig");
            Run r = run("serve", "--port", String.valueOf(port), "--kubeconfig", kubeconfig.toString());
            assertEquals(2, r.exit(), r.err());
            assertEquals("crifresh-sim: --port " + port + ": cannot listen on 127.0.0.1:" + port + ": address already in use\n", r.err());
            assertTrue(!Files.exists(dir.resolve("sim")), "no files, no lock left");
        }
    }

    @Test
    void aSecondServeInTheSameDirectoryIsRefusedNamingTheFirst() throws Exception {
        Path kubeconfig = dir.resolve("sim/kubeconfig");
        // the first serve's hold on the directory, as ServedSimulation takes it before anything else
        var first = new dev.crifresh.sim.serve.ServedSimulationProbe(kubeconfig, "http://127.0.0.1:40003");
        try {
            Run r = run("serve", "--kubeconfig", kubeconfig.toString());
            assertEquals(2, r.exit(), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("crifresh-sim: another crifresh-sim serve (pid " + ProcessHandle.current().pid()
                    + ", API server http://127.0.0.1:40003) uses " + kubeconfig.getParent().toAbsolutePath()), r.err());
            assertTrue(Files.readString(kubeconfig).contains("http://127.0.0.1:40003"), "the first one's kubeconfig is untouched");
        } finally {
            first.close();
        }
    }
}
