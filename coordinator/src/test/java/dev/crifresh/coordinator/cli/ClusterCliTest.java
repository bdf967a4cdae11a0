package dev.crifresh.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.fixture.Harness;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Which cluster a run talks to, and what it says when it cannot: unknown contexts, users and clusters, a missing
 * $KUBECONFIG, an unreachable server (a real closed loopback port), a TLS mismatch (https against the plain-HTTP
 * mock API server), 401 and 403 from the mock API server, a Lease held by another run; a credential no registry
 * would accept. Every user mistake: exit 2, one line naming the input, no stack trace.
 */
class ClusterCliTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private Harness h;
    private CliInputs in;
    private String server;
    private Path kubeconfig;

    @BeforeEach
    void cluster() throws Exception {
        h = new Harness();
        in = new CliInputs(dir, h);
        server = in.server;
        kubeconfig = in.kubeconfig;
    }

    @AfterEach
    void close() {
        h.close();
    }

    private Path kubeconfig(String name, String url, String user, String clusterName) throws IOException {
        return in.kubeconfig(name, url, user, clusterName);
    }

    private String[] args(String command, Path config, String... more) {
        return in.args(command, config, more);
    }

    /** Exit 2, exactly one error line holding {@code expected}, no stack trace, nothing on stdout. */
    private static void assertUsage(Cli r, String expected) {
        assertEquals(2, r.exit(), r.err());
        assertOneErrorLine(r, expected);
        assertEquals("", r.out());
    }

    private static void assertOneErrorLine(Cli r, String expected) {
        assertEquals(1, r.errorLines(), r.err());
        assertTrue(r.err().contains(expected), "expected '" + expected + "' in: " + r.err());
        assertFalse(r.err().contains("\tat "), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void anUnknownContextIsExit2NamingTheContextAndTheFileForPlanAndRollout() {
        h.worker("w1", Verdict.STALE);
        for (String command : List.of("plan", "rollout")) {
            Cli r = Cli.run(args(command, kubeconfig, "--context", "nosuch"));
            assertUsage(r, "--context nosuch: no such context in " + kubeconfig + " (contexts: mock, other)");
        }
        // nothing was touched: no Lease, the node not cordoned
        assertTrue(h.cluster.test.leases().inAnyNamespace().list().getItems().isEmpty());
    }

    @Test
    void aContextNamingAnUndefinedUserOrClusterIsExit2() throws Exception {
        Cli user = Cli.run(args("plan", kubeconfig("no-user", server, "nobody", "mock")));
        assertUsage(user, "context mock in " + dir.resolve("no-user") + " names user 'nobody', which is not defined there");
        Cli cluster = Cli.run(args("plan", kubeconfig("no-cluster", server, "ci", "elsewhere")));
        assertUsage(cluster, "context mock in " + dir.resolve("no-cluster") + " names cluster 'elsewhere', which is not defined there");
    }

    @Test
    void theClusterIsNamedOnTheFirstLineAndInEveryReport() throws Exception {
        h.worker("w1", Verdict.FRESH);
        Path summary = dir.resolve("summary.md");
        Path report = dir.resolve("report.json");
        Cli plan = Cli.run("plan", "--kubeconfig", kubeconfig.toString(), "--context", "other", "--trust-bundle", in.trust.toString(),
                "--credential-file", in.credential.toString(), "--step-summary", summary.toString(), "--report", report.toString());
        assertEquals(0, plan.exit(), plan.err());
        String first = plan.err().lines().findFirst().orElseThrow();
        assertTrue(first.matches("\\S+Z INFO +run-\\S+ cluster " + java.util.regex.Pattern.quote(server + " (context other, --kubeconfig "
                + kubeconfig + ")")), first);
        assertTrue(plan.out().contains("\ncluster: " + server + " (context other, --kubeconfig " + kubeconfig + ")\n"), plan.out());
        JsonNode json = JSON.readTree(Files.readString(report));
        assertEquals(server, json.get("cluster").get("server").asString());
        assertEquals("other", json.get("cluster").get("context").asString());
        assertEquals("--kubeconfig " + kubeconfig, json.get("cluster").get("source").asString());
        assertTrue(Files.readString(summary).contains("Cluster: " + server + " (context other, --kubeconfig " + kubeconfig + ")"));

        Cli rollout = Cli.run(args("rollout", kubeconfig, "-o", "json"));
        assertEquals(0, rollout.exit(), rollout.err());
        assertTrue(rollout.err().lines().findFirst().orElseThrow().contains(" cluster " + server + " (context mock, "), rollout.err());
        assertEquals("mock", JSON.readTree(rollout.out()).get("cluster").get("context").asString());
    }

    @Test
    void aRefusedConnectionIsRetriedForTheConnectTimeoutThenExit5NotALeaseWait() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        String url = "http://127.0.0.1:" + closed;
        Path refused = kubeconfig("refused", url, "ci", "mock");
        for (String command : List.of("plan", "rollout")) {
            long started = System.nanoTime();
            Cli r = command.equals("plan") ? Cli.run(args(command, refused, "--connect-timeout", "1s"))
                    : Cli.run(args(command, refused, "--connect-timeout", "1s", "--lock-timeout", "5m"));
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            assertEquals(5, r.exit(), r.err());
            assertOneErrorLine(r, "cannot reach " + url + ": connection refused; gave up after --connect-timeout 1s (--kubeconfig " + refused + ")");
            assertTrue(r.err().contains("cannot reach " + url + ": connection refused; trying for up to 1s (--connect-timeout)"), r.err());
            assertFalse(r.err().contains("lock"), r.err());
            assertTrue(seconds < 60, "gave up after " + seconds + " s, not after the 5m lock timeout");
        }
    }

    /** A server that takes the connection and never answers (a hung API server): the 10 s request timeout, then exit 5. */
    @Test
    void aServerThatNeverAnswersIsUnreachableTooExit5() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String url = "http://127.0.0.1:" + silent.getLocalPort();
            Path hung = kubeconfig("hung", url, "ci", "mock");
            Cli r = Cli.run(args("plan", hung, "--connect-timeout", "1s"));
            assertEquals(5, r.exit(), r.err());
            assertOneErrorLine(r, "cannot reach " + url + ": ");
            assertTrue(r.err().contains("gave up after --connect-timeout 1s"), r.err());
        }
    }

    @Test
    void httpsAgainstAPlainHttpServerIsATlsErrorExit2() throws Exception {
        String url = server.replace("http://", "https://");
        Path tls = kubeconfig("tls", url, "ci", "mock");
        Cli r = Cli.run(args("plan", tls));
        assertEquals(2, r.exit(), r.err());
        assertOneErrorLine(r, "cannot reach " + url + ": TLS handshake failed: ");
        assertTrue(r.err().contains("(check the cluster's certificate-authority in --kubeconfig " + tls + ")"), r.err());
    }

    @Test
    void a401IsRejectedCredentialsExit2() {
        h.cluster.server.expect().get().withPath("/api/v1/nodes?limit=1").andReturn(401, new StatusBuilder().withStatus("Failure")
                .withCode(401).withReason("Unauthorized").withMessage("Unauthorized").build()).always();
        Cli r = Cli.run(args("plan", kubeconfig));
        assertUsage(r, server + " rejected the credentials of context mock (--kubeconfig " + kubeconfig + "): 401 Unauthorized");
    }

    @Test
    void a403NamesTheMissingRbacVerbAndIsNotMistakenForAHeldLease() {
        h.worker("w1", Verdict.STALE);
        h.cluster.server.expect().get().withPath("/apis/coordination.k8s.io/v1/namespaces/ops/leases/crifresh-rollout").andReturn(403,
                new StatusBuilder().withStatus("Failure").withCode(403).withReason("Forbidden")
                        .withMessage("leases.coordination.k8s.io \"crifresh-rollout\" is forbidden: User \"ci\" cannot get resource \"leases\"")
                        .build()).always();
        Cli r = Cli.run(args("rollout", kubeconfig, "--namespace", "ops", "--lock-timeout", "5m"));
        assertUsage(r, "403 Forbidden: context mock (--kubeconfig " + kubeconfig + ") may not get leases.coordination.k8s.io;"
                + " missing RBAC permission 'get' on leases.coordination.k8s.io in namespace ops");
        assertFalse(h.cluster.test.nodes().withName("w1").get().getSpec().getUnschedulable() == Boolean.TRUE);
    }

    @Test
    void aPermissionTheRolloutNeedsLaterIsAskedForBeforeAnythingIsTouched() {
        h.worker("w1", Verdict.STALE);
        h.cluster.server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews").andReturn(201,
                new io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder().withNewSpec()
                        .withNewResourceAttributes().withVerb("watch").withResource("nodes").endResourceAttributes().endSpec()
                        .withNewStatus().withAllowed(false).withReason("no RBAC rule allows it").endStatus().build()).always();
        Cli r = Cli.run(args("rollout", kubeconfig, "--namespace", "ops"));
        assertUsage(r, server + ": context mock (--kubeconfig " + kubeconfig + ") may not watch nodes; missing RBAC permission"
                + " 'watch' on nodes (cluster scope) (server: no RBAC rule allows it)");
        assertTrue(h.cluster.test.leases().inNamespace("ops").list().getItems().isEmpty(), "the Lease was not taken");
    }

    @Test
    void aLeaseHeldByAnotherRunNamesTheHolderAndSinceWhenExit4() {
        h.worker("w1", Verdict.STALE);
        ZonedDateTime since = ZonedDateTime.parse("2026-12-03T04:05:06Z");
        h.cluster.test.leases().inNamespace("ops").resource(new LeaseBuilder().withNewMetadata().withName("crifresh-rollout")
                .withNamespace("ops").endMetadata().withNewSpec().withHolderIdentity("run-other/abc").withLeaseDurationSeconds(60)
                .withAcquireTime(since).withRenewTime(ZonedDateTime.now()).endSpec().build()).create();
        Cli r = Cli.run(args("rollout", kubeconfig, "--namespace", "ops", "--lock-timeout", "200ms", "-o", "json"));
        assertEquals(4, r.exit(), r.err());
        assertTrue(r.out().contains("held by run-other/abc since 2026-12-03T04:05:06Z"), r.out());
    }

    @Test
    void aCredentialWithAUsernameAndNoPasswordOrAnEmptyAuthIsRejectedAtOnce() throws Exception {
        h.worker("w1", Verdict.STALE);
        Path noPassword = in.credential("no-password.json", "deploy-bot:");
        Cli r = Cli.run("rollout", "--kubeconfig", kubeconfig.toString(), "--trust-bundle", in.trust.toString(),
                "--credential-file", noPassword.toString(), "--step-summary", "", "--config-timeout", "5m");
        assertEquals(2, r.exit(), r.err());
        assertOneErrorLine(r, "--credential-file " + noPassword + ": the credential for ghcr.io has a username but no password");

        Path empty = Files.writeString(dir.resolve("empty-auth.json"), "{\"auths\":{\"ghcr.io\":{\"auth\":\"\"}}}");
        Cli e = Cli.run("plan", "--kubeconfig", kubeconfig.toString(), "--trust-bundle", in.trust.toString(),
                "--credential-file", empty.toString(), "--step-summary", "");
        assertEquals(2, e.exit(), e.err());
        assertOneErrorLine(e, "--credential-file " + empty + ": the credential for ghcr.io has no username and no password (an empty auth)");
    }

    @Test
    void keysInitIntoAnUncreatableDirectoryIsExit2NamingTheFlag() throws Exception {
        Cli r = Cli.run("keys", "init", "--out-dir", "/proc/nope");
        assertUsage(r, "crifresh-coordinator: --out-dir /proc/nope: cannot create or write it: no such file");
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertUsage(Cli.run("keys", "init", "--out-dir", file.toString()), "crifresh-coordinator: --out-dir " + file + ": not a directory");
    }

    /**
     * $KUBECONFIG is the process's environment: a real JVM with {@code KUBECONFIG=/nonexistent} must fail exactly
     * like {@code --kubeconfig /nonexistent}.
     */
    @Test
    void aMissingKubeconfigFromTheEnvironmentIsExit2LikeTheFlag() throws Exception {
        Path missing = dir.resolve("nonexistent");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), CoordinatorMain.class.getName(),
                "plan", "--trust-bundle", in.trust.toString(), "--credential-file", in.credential.toString(), "--step-summary", "");
        pb.environment().put("KUBECONFIG", missing.toString());
        pb.environment().put("HOME", dir.toString());
        pb.redirectErrorStream(false);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        Cli env = new Cli(p.exitValue(), out, err);
        assertUsage(env, "crifresh-coordinator: $KUBECONFIG names " + missing + ", which is not a readable file");
        assertUsage(Cli.run(args("plan", missing)), "crifresh-coordinator: --kubeconfig " + missing + " is not a readable file");
    }
}
