package dev.crifresh.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.fixture.Harness;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The command line against the mock API server: flags, inputs, outputs and exit codes. */
class CliTest {
    @TempDir
    Path dir;

    private Harness h;
    private Path kubeconfig;
    private Path trust;
    private Path credential;
    private CliInputs inputs;

    @BeforeEach
    void cluster() throws Exception {
        h = new Harness();
        CliInputs in = new CliInputs(dir, h);
        kubeconfig = in.kubeconfig;
        trust = in.trust;
        credential = in.credential;
        inputs = in;
    }

    @AfterEach
    void close() {
        h.close();
    }

    private String[] args(String command, String... more) {
        return inputs.args(command, kubeconfig, more);
    }

    @Test
    void planPrintsTheJsonReportAndWritesTheReportAndTheStepSummary() throws Exception {
        h.worker("w1", Verdict.FRESH);
        h.worker("w2", Verdict.STALE);
        Path report = dir.resolve("report.json");
        Path summary = dir.resolve("summary.md");
        Files.writeString(summary, "earlier step\n");
        List<String> a = new java.util.ArrayList<>(List.of(args("plan", "-o", "json", "--report", report.toString())));
        a.set(a.indexOf("--step-summary") + 1, summary.toString());
        Cli r = Cli.run(a.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        JsonNode json = JsonMapper.builder().build().readTree(r.out());
        assertEquals("planned", json.get("result").asString());
        assertEquals("w2", json.get("rebootOrder").get(0).asString());
        assertEquals(r.out(), Files.readString(report));
        String md = Files.readString(summary);
        assertTrue(md.startsWith("earlier step\n### crifresh plan: planned"), md);
        assertTrue(r.err().lines().allMatch(l -> l.contains(" cluster " + h.cluster.client.getConfiguration().getMasterUrl().replaceAll("/$", ""))
                || l.contains("classified")), r.err());
        assertFalse(r.out().contains("token-v2"));
    }

    @Test
    void anUnwritableReportIsAWarningThatSaysWhy() throws Exception {
        h.worker("w1", Verdict.FRESH);
        Path report = dir.resolve("no-such-dir").resolve("report.json");
        Cli r = Cli.run(args("plan", "-o", "json", "--report", report.toString()));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("crifresh-coordinator: warning: cannot write --report " + report + ": no such file"), r.err());
    }

    @Test
    void planPrintsATableByDefault() {
        h.worker("w1", Verdict.STALE);
        Cli r = Cli.run(args("plan"));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("NODE"), r.out());
        assertTrue(r.out().contains("rollout order: w1"), r.out());
    }

    @Test
    void inputsCanComeFromSecrets() {
        h.worker("w1", Verdict.FRESH);
        h.cluster.test.secrets().inNamespace("crifresh").resource(new SecretBuilder().withNewMetadata().withName("trust").withNamespace("crifresh")
                .endMetadata().addToData(TrustBundle.JWKS_FILE, b64(h.agent.trust.jwksJson().getBytes(StandardCharsets.UTF_8)))
                .addToData(TrustBundle.FINGERPRINT_KEY_FILE, b64(h.agent.fingerprintKey)).build()).create();
        h.cluster.test.secrets().inNamespace("ci").resource(new SecretBuilder().withNewMetadata().withName("ghcr").withNamespace("ci")
                .endMetadata().withType("kubernetes.io/dockerconfigjson")
                .addToData(".dockerconfigjson", b64(CliInputs.DOCKER_CONFIG.getBytes(StandardCharsets.UTF_8))).build()).create();
        Cli r = Cli.run("plan", "--kubeconfig", kubeconfig.toString(), "--trust-secret", "crifresh/trust",
                "--credential-secret", "ci/ghcr", "-o", "json", "--step-summary", "");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"verdict\" : \"fresh\""), r.out());
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    @Test
    void rolloutWithNothingToDoSucceedsAndPushesMetrics() throws Exception {
        h.worker("w1", Verdict.FRESH);
        Vertx vertx = Vertx.vertx();
        List<String> received = new CopyOnWriteArrayList<>();
        try {
            HttpServer server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
                received.add(req.method() + " " + req.path() + "\n" + body.toString());
                req.response().setStatusCode(200).end();
            })).listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            Cli r = Cli.run(args("rollout", "--pushgateway", "http://localhost:" + server.actualPort() + "/"));
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().contains("result: succeeded"), r.out());
            assertEquals(1, received.size());
            String push = received.get(0);
            assertTrue(push.startsWith("PUT /metrics/job/crifresh-rollout\n"), push);
            assertTrue(push.contains("\ncrifresh_rollout_nodes{verdict=\"fresh\"} 1\n"), push);
            assertTrue(push.contains("\ncrifresh_rollout_success 1\n"), push);
            assertTrue(push.contains("\ncrifresh_rollout_exit_code 0\n"), push);
            assertTrue(push.contains("# TYPE crifresh_rollout_duration_seconds gauge"), push);
        } finally {
            vertx.close();
        }
    }

    @Test
    void rolloutExits4WhenTheLockIsHeld() {
        h.worker("w1", Verdict.STALE);
        h.cluster.test.leases().inNamespace("ops").resource(new LeaseBuilder().withNewMetadata().withName("crifresh-rollout")
                .withNamespace("ops").endMetadata().withNewSpec().withHolderIdentity("other-run").withLeaseDurationSeconds(60)
                .withRenewTime(ZonedDateTime.now()).endSpec().build()).create();
        Cli r = Cli.run(args("rollout", "--namespace", "ops", "--lock-timeout", "200ms", "-o", "json"));
        assertEquals(4, r.exit(), r.err());
        assertTrue(r.out().contains("held by other-run"), r.out());
    }

    @Test
    void rolloutWithActionNoneExits3WhenANodeStaysStale() {
        h.worker("w1", Verdict.STALE);
        Cli r = Cli.run(args("rollout", "--action", "none", "--attest-timeout", "300ms", "--lease-duration", "2s"));
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.err().contains("action none: waiting up to 300ms"), r.err());
    }

    @Test
    void everyLogLineCarriesTheRunIdAndALevel() {
        h.worker("w1", Verdict.STALE);
        Cli text = Cli.run(args("rollout", "--action", "none", "--attest-timeout", "300ms", "--lease-duration", "2s",
                "--run-id", "run-text1"));
        assertEquals(3, text.exit(), text.err());
        List<String> lines = text.err().lines().toList();
        assertFalse(lines.isEmpty());
        for (String line : lines) {
            assertTrue(line.matches("\\d{4}-\\d\\d-\\d\\dT\\S+Z (INFO |WARN |ERROR) run-text1 .+"), line);
        }
        assertTrue(text.err().contains("ERROR run-text1 stopping: 1 node(s) did not attest fresh"), text.err());

        Cli json = Cli.run(args("rollout", "--action", "none", "--attest-timeout", "300ms", "--lease-duration", "2s",
                "--run-id", "run-json1", "--log-format", "json"));
        assertEquals(3, json.exit(), json.err());
        List<String> levels = new java.util.ArrayList<>();
        for (String line : json.err().lines().toList()) {
            JsonNode o = JsonMapper.builder().build().readTree(line);
            assertEquals("run-json1", o.get("run").asString(), line);
            assertTrue(o.get("time").asString().endsWith("Z"), line);
            assertFalse(o.get("msg").asString().isEmpty(), line);
            levels.add(o.get("level").asString());
        }
        assertTrue(levels.contains("INFO") && levels.contains("ERROR"), levels.toString());
    }

    @Test
    void aBadStaleTaintIsAUsageError() {
        Cli r = Cli.run(args("plan", "--stale-taint", "Sometimes"));
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("'Sometimes' is not PreferNoSchedule, NoSchedule or off"), r.err());
    }

    @Test
    void aBadLogFormatIsAUsageError() {
        Cli r = Cli.run(args("plan", "--log-format", "yaml"));
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--log-format"), r.err());
    }

    @Test
    void usageMistakesAreOneLineAndExit2() throws Exception {
        Map<String, String[]> cases = new java.util.LinkedHashMap<>();
        cases.put("--trust-bundle", new String[] {"plan", "--credential-file", credential.toString()});
        cases.put("mutually exclusive", args("plan", "--trust-secret", "a/b"));
        cases.put("--max-unavailable '0'", args("rollout", "--max-unavailable", "0"));
        cases.put("'10x' is not a duration", args("rollout", "--drain-timeout", "10x"));
        cases.put("--stall-timeout must be a positive duration", args("rollout", "--stall-timeout", "0s"));
        cases.put("'kexec' is not reboot, none or auto", args("rollout", "--action", "kexec"));
        cases.put("--reboot-driver command needs --reboot-command", args("rollout", "--reboot-driver", "command"));
        cases.put("unbalanced", args("rollout", "--reboot-driver", "command", "--reboot-command", "ssh '{ip}"));
        cases.put("no credential for registry quay.io", args("plan", "--registry", "quay.io"));
        cases.put("--pull-proof rebooted needs --pull-proof-image", args("rollout", "--pull-proof", "rebooted"));
        cases.put("'sometimes' is not off, rebooted or all", args("plan", "--pull-proof", "sometimes"));
        cases.put("--block-on-alert needs --prometheus-url", args("rollout", "--block-on-alert", "Node.*"));
        cases.put("--block-on-alert '(' is not a regular expression", args("plan", "--block-on-alert", "(",
            "--prometheus-url", "http://prometheus:9090"));
        cases.put("--prometheus-url 'prometheus:9090' is not an http(s) URL", args("rollout", "--block-on-alert", "A",
            "--prometheus-url", "prometheus:9090"));
        cases.put("--etcd-check command needs --etcd-command", args("rollout", "--etcd-check", "command"));
        cases.put("'maybe' is not talosctl, command or none", args("rollout", "--etcd-check", "maybe"));
        cases.put("--etcd-command needs --etcd-check command", args("rollout", "--etcd-command", "true"));
        cases.put("Unknown option: '--frobnicate'", args("plan", "--frobnicate"));
        cases.put("must be NAMESPACE/NAME", new String[] {"plan", "--kubeconfig", kubeconfig.toString(), "--trust-secret", "nope",
            "--credential-file", credential.toString()});
        cases.put("no such Secret", new String[] {"plan", "--kubeconfig", kubeconfig.toString(), "--trust-secret", "x/nope",
            "--credential-file", credential.toString()});
        Path missing = dir.resolve("missing");
        cases.put("--trust-bundle: cannot read " + missing.resolve("jwks.json") + ": no such file", new String[] {"plan", "--kubeconfig", kubeconfig.toString(),
            "--trust-bundle", missing.toString(), "--credential-file", credential.toString()});
        Path garbage = Files.createDirectories(dir.resolve("garbage"));
        Files.writeString(garbage.resolve("jwks.json"), "{\"keys\": 7}");
        Files.write(garbage.resolve("fingerprint.key"), new byte[32]);
        cases.put("--trust-bundle " + garbage, new String[] {"plan", "--kubeconfig", kubeconfig.toString(),
            "--trust-bundle", garbage.toString(), "--credential-file", credential.toString()});
        Path badJson = dir.resolve("bad.json");
        Files.writeString(badJson, "{not json");
        cases.put("--credential-file " + badJson, new String[] {"plan", "--kubeconfig", kubeconfig.toString(),
            "--trust-bundle", trust.toString(), "--credential-file", badJson.toString()});
        cases.put("--credential-file " + missing + ": cannot read: no such file", new String[] {"plan", "--kubeconfig",
            kubeconfig.toString(), "--trust-bundle", trust.toString(), "--credential-file", missing.toString()});
        for (Map.Entry<String, String[]> c : cases.entrySet()) {
            Cli r = Cli.run(c.getValue());
            assertEquals(2, r.exit(), c.getKey() + ": " + r.err());
            assertEquals(1, r.errorLines(), c.getKey() + ": " + r.err());
            // besides the error, at most the run's first line naming the cluster
            assertTrue(r.err().lines().filter(l -> !l.startsWith("crifresh-coordinator:")).allMatch(l -> l.contains(" INFO ")
                    && l.contains(" cluster ")), c.getKey() + ": " + r.err());
            assertTrue(r.err().contains(c.getKey()), c.getKey() + ": " + r.err());
            assertFalse(r.err().contains("\tat "), r.err());
            assertEquals("", r.out(), c.getKey());
        }
    }

    @Test
    void helpAndNoArguments() {
        Cli help = Cli.run("rollout", "--help");
        assertEquals(0, help.exit());
        for (String flag : List.of("--max-unavailable", "--action", "--reboot-driver", "--reboot-command", "--talosconfig",
                "--config-timeout", "--drain-timeout", "--reboot-timeout", "--stall-timeout", "--attest-timeout", "--lock-timeout", "--namespace",
                "--pushgateway", "--trust-bundle", "--trust-secret", "--credential-secret", "--credential-file", "--registry",
                "--node-selector", "--output", "--report", "--context", "--marker-annotation", "--pull-proof", "--pull-proof-image",
                "--pull-proof-namespace", "--pull-proof-timeout", "--etcd-check", "--etcd-command", "--etcd-timeout",
                "--block-on-alert", "--prometheus-url", "--block-on-pod-selector", "--block-timeout", "--talosctl")) {
            assertTrue(help.out().contains(flag), flag);
        }
        assertEquals(2, Cli.run().exit());
    }
}
