package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * A condition never outlives its proof, shown with the real kubectl against {@code crifresh-sim serve}: with
 * short agent lifetimes ({@code --agent-validity 20s --agent-heartbeat 5s}), {@code crifresh-sim hang worker-d}
 * makes fresh worker-d's agent stop writing, and within the validity plus the simulated expiry bound (4 s) the Node
 * reads {@code Unknown}/{@code AttestationExpired}, while the nodes whose agents run keep their verdicts. The times
 * are read from the cluster (the attestation's {@code exp}, the leader's {@code lastTransitionTime}), not from this
 * test's clock, so starting JVMs and kubectl on a loaded machine does not count.
 */
class HangIT {
    private static final Duration VALIDITY = Duration.ofSeconds(20);
    /**
     * The simulated expiry leader's bound (Lease 3 s + period 1 s), plus the leader's round on a loaded machine and
     * the condition's whole-second stamp.
     */
    private static final Duration BOUND_AND_SLACK = Duration.ofSeconds(4 + 6);
    private static final String COLUMN = "{.status.conditions[?(@.type==\"ContainerdConfigFresh\")].";

    @TempDir
    Path work;

    record Result(int exit, String out) {
    }

    @Test
    void aHungAgentsConditionReadsUnknownAttestationExpiredWithinItsValidityPlusTheBound() throws Exception {
        ServeProcess.requirePackagedJars();
        Path kubectl = Path.of("/usr/bin/kubectl");
        String noKubectl = "kubectl is not installed (Debian: apt-get install kubernetes-client)";
        assertTrue(Files.isExecutable(kubectl) || !"true".equals(System.getenv("CI")), noKubectl);
        Assumptions.assumeTrue(Files.isExecutable(kubectl), noKubectl);
        try (ServeProcess serve = ServeProcess.start(work, "--agent-validity", "20s", "--agent-heartbeat", "5s")) {
            Path config = serve.kubeconfig();
            assertEquals("True", field(kubectl, config, "worker-d", "status"));
            assertEquals("False", field(kubectl, config, "worker-b", "status"));
            assertEquals("Unknown AttestationExpired", field(kubectl, config, "worker-c", "status") + " "
                    + field(kubectl, config, "worker-c", "reason"), "the demo's hung worker-c, marked before serve served");

            Result hang = run(List.of(ServeProcess.java(), "-jar", ServeProcess.SIM_JAR.toString(), "hang", "worker-d",
                    "--kubeconfig", config.toString()));
            Instant hungBy = Instant.now();
            assertEquals(new Result(0, "the agent on worker-d hung; its last condition stays until it expires\n"), hang);
            Result waited = run(List.of(kubectl.toString(), "--kubeconfig", config.toString(), "wait",
                    "--for=condition=ContainerdConfigFresh=Unknown", "node/worker-d", "--timeout=120s"));
            assertEquals(new Result(0, "node/worker-d condition met\n"), waited);
            assertEquals("AttestationExpired", field(kubectl, config, "worker-d", "reason"));
            String message = field(kubectl, config, "worker-d", "message");
            assertTrue(message.startsWith("the attestation (True) expired at "), message);
            // The last attestation was signed before the hang: it expires within the validity after it ...
            Instant exp = exp(message);
            assertTrue(!exp.isAfter(hungBy.plus(VALIDITY).plusSeconds(1)), exp + " vs hang at " + hungBy);
            // ... and the leader marked it within the bound after exp (its own stamp, free of kubectl's and the JVMs' latency)
            Instant marked = Instant.parse(field(kubectl, config, "worker-d", "lastTransitionTime"));
            Duration late = Duration.between(exp, marked);
            assertTrue(!late.isNegative() && late.compareTo(BOUND_AND_SLACK) <= 0, "marked " + late.toMillis() + " ms after exp");
            assertEquals("True", field(kubectl, config, "worker-e", "status"), "a node whose agent runs stays fresh");
            assertEquals("False", field(kubectl, config, "worker-b", "status"), "and a stale one stale");
            System.out.println("HangIT: worker-d marked Unknown " + late.toMillis() + " ms after its exp (bound 4 s)");

            Result again = run(List.of(ServeProcess.java(), "-jar", ServeProcess.SIM_JAR.toString(), "hang", "worker-d",
                    "--kubeconfig", config.toString()));
            assertEquals(1, again.exit(), again.out());
            assertTrue(again.out().contains("no agent runs on worker-d"), again.out());
            Result unknown = run(List.of(ServeProcess.java(), "-jar", ServeProcess.SIM_JAR.toString(), "hang", "worker-z",
                    "--kubeconfig", config.toString()));
            assertEquals(2, unknown.exit(), unknown.out());
        }
    }

    /** The {@code exp} of the attestation the marked condition still carries. */
    private static Instant exp(String message) {
        String token = message.substring(message.lastIndexOf("; attestation=") + "; attestation=".length()).trim();
        byte[] payload = Base64.getUrlDecoder().decode(token.split("\\.")[1]);
        return Instant.ofEpochSecond(JsonMapper.builder().build().readTree(payload).path("exp").asLong());
    }

    private static String field(Path kubectl, Path config, String node, String field) throws Exception {
        Result r = run(List.of(kubectl.toString(), "--kubeconfig", config.toString(), "get", "node", node, "-o",
                "jsonpath=" + COLUMN + field + "}"));
        assertEquals(0, r.exit(), r.out());
        return r.out().trim();
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), command + " did not return");
        return new Result(p.exitValue(), out);
    }
}
