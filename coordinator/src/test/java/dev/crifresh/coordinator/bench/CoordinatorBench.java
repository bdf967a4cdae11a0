package dev.crifresh.coordinator.bench;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.ConfigClaim;
import dev.crifresh.common.attest.ContainerdClaim;
import dev.crifresh.common.attest.ExpectedNode;
import dev.crifresh.common.attest.FileClaim;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.MarkerRule;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.fixture.ApiFixture;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.fixture.Timeline;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.rollout.view.BulkClassify;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vertx.core.Context;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's performance figures (not a test): {@code ./mvnw -B -o -q verify -pl coordinator -am -Pbench -DskipTests}.
 * <ol>
 *   <li>plan over 1,000 and 5,000 Nodes with valid attestations on the mock API server: the whole
 *       {@code plan()} and the part after the node list returned (classification, target ≤ 2 s for 5,000);</li>
 *   <li>Ed25519 attestation verifications per second, one thread, on a realistic token;</li>
 *   <li>the coordinator's own delay between a node turning fresh and the next node's cordon (target ≤ 100 ms).</li>
 * </ol>
 */
public final class CoordinatorBench {
    private CoordinatorBench() {
    }

    public static void main(String[] args) throws Exception {
        System.out.printf(Locale.ROOT, "crifresh coordinator benchmark (%d cores, %s)%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        verifications();
        plan(1_000);
        plan(5_000);
        freshToNextCordon(12);
    }

    /** A claims set of realistic size: containerd, three config files, two registries. */
    static AttestationClaims realistic(String name, String uid, String boot, TestAgent agent) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        return new AttestationClaims(AttestationClaims.VERSION, AttestationClaims.ISSUER, name, uid, boot, now, now.plus(Duration.ofMinutes(15)),
                Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG.code(), Proof.ORDERING,
                new ContainerdClaim(1234, 612, 100, now.minus(Duration.ofHours(3))),
                new ConfigClaim("sha256:" + "ab".repeat(32), List.of(
                        new FileClaim("/etc/cri/containerd.toml", now.minus(Duration.ofHours(4)), "cd".repeat(32)),
                        new FileClaim("/etc/cri/conf.d/cri.toml", now.minus(Duration.ofHours(4)), "ef".repeat(32)),
                        new FileClaim("/etc/cri/conf.d/01-registries.part", now.minus(Duration.ofHours(4)), "01".repeat(32)))),
                Map.of("ghcr.io", agent.fingerprint(TestAgent.DESIRED), "docker.io", "x".repeat(22)), 50, "0.1.0");
    }

    static void verifications() {
        TestAgent agent = new TestAgent();
        String token = agent.sign(realistic("worker-1", "uid-1", "boot-1", agent));
        AttestationVerifier verifier = new AttestationVerifier(agent.trust, Duration.ofSeconds(60));
        ExpectedNode expected = new ExpectedNode("worker-1", "uid-1", "boot-1", "True");
        List<Double> rates = new ArrayList<>();
        for (int round = 0; round < 8; round++) {
            int n = 5_000;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                if (!verifier.verify(token, expected, Instant.now()).isValid()) {
                    throw new IllegalStateException("the benchmark token does not verify");
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (round >= 3) {
                rates.add(n / seconds);
            }
        }
        Collections.sort(rates);
        System.out.printf(Locale.ROOT, "verify: %d-char token, one thread: median %.0f verifications/s (min %.0f, max %.0f over %d rounds of 5,000 after 3 warm-up rounds)%n",
                token.length(), rates.get(rates.size() / 2), rates.get(0), rates.get(rates.size() - 1), rates.size());
    }

    static void plan(int count) throws Exception {
        try (Harness h = new Harness()) {
            ApiFixture cluster = h.cluster;
            long t0 = System.nanoTime();
            for (int i = 0; i < count; i++) {
                String name = String.format(Locale.ROOT, "worker-%05d", i);
                String boot = UUID.randomUUID().toString();
                Node created = cluster.test.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                        .withNewSpec().endSpec().withNewStatus().withNewNodeInfo().withBootID(boot).endNodeInfo()
                        .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
                // The mock assigns the UID; the attestation is signed for the UID the server holds.
                String token = h.agent.sign(realistic(name, created.getMetadata().getUid(), boot, h.agent));
                TestAgent.publish(cluster, name, "True", Reason.CONTAINERD_STARTED_AFTER_CONFIG.code(),
                        "containerd started after its config was written", token);
            }
            double setup = (System.nanoTime() - t0) / 1e9;
            Harness.RolloutRun run = h.run(Harness.fastSettings());
            List<Double> totals = new ArrayList<>();
            List<Double> lists = new ArrayList<>();
            List<Double> classifies = new ArrayList<>();
            NodeClassifier classifier = new NodeClassifier(new AttestationVerifier(h.agent.trust, Duration.ofSeconds(60)), "ghcr.io",
                    h.agent.fingerprint(TestAgent.DESIRED), new MarkerRule(ConditionContract.DEFAULT_MARKER_ANNOTATION, null));
            Context context = run.vertx.getOrCreateContext();
            for (int round = 0; round < 7; round++) {
                long p0 = System.nanoTime();
                Report report = run.plan();
                totals.add((System.nanoTime() - p0) / 1e6);
                if (report.summary().fresh() != count) {
                    throw new IllegalStateException("expected " + count + " fresh nodes, got " + report.summary());
                }
                long l0 = System.nanoTime();
                List<Node> listed = run.client.nodes().list().getItems();
                long l1 = System.nanoTime();
                var classified = BulkClassify.classifyAll(context, classifier, listed.stream().map(NodeFacts::of).toList(), Instant.now())
                        .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
                long l2 = System.nanoTime();
                if (classified.size() != count) {
                    throw new IllegalStateException("classified " + classified.size());
                }
                if (round < 2) {
                    totals.remove(totals.size() - 1);
                    continue;
                }
                lists.add((l1 - l0) / 1e6);
                classifies.add((l2 - l1) / 1e6);
            }
            System.out.printf(Locale.ROOT, "plan %,d nodes (created in %.1f s): whole plan() median %.0f ms (min %.0f); node list alone median %.0f ms;"
                            + " after the list returned (NodeFacts + verify + classify on %d worker threads) median %.0f ms (min %.0f, max %.0f) over 5 rounds after 2 warm-up rounds%n",
                    count, setup, median(totals), Collections.min(totals), median(lists), Runtime.getRuntime().availableProcessors(),
                    median(classifies), Collections.min(classifies), Collections.max(classifies));
        }
    }

    /** Stale workers rebooted one at a time; from the agent's fresh attestation to the next node's cordon. */
    static void freshToNextCordon(int workers) throws Exception {
        try (Harness h = new Harness()) {
            for (int i = 0; i < workers; i++) {
                h.worker(String.format(Locale.ROOT, "w%02d", i), Verdict.STALE);
            }
            TimedDriver driver = new TimedDriver(h);
            CoordinatorSettings settings = Harness.fastSettings().toBuilder().maxUnavailable("1").build();
            Report report;
            List<Timeline.Event> events;
            try (Timeline timeline = new Timeline(h.cluster)) {
                report = h.run(settings, driver).rollout().report();
                events = timeline.events();
            }
            if (report.exitCode() != 0) {
                throw new IllegalStateException(report.toJson());
            }
            List<String> order = report.rebootOrder();
            List<Double> delays = new ArrayList<>();
            for (int i = 0; i + 1 < order.size(); i++) {
                long fresh = driver.freshAt(order.get(i));
                String next = order.get(i + 1);
                long cordon = events.stream().filter(e -> e.node().equals(next) && e.cordoned()).mapToLong(Timeline.Event::nanos)
                        .min().orElseThrow();
                delays.add((cordon - fresh) / 1e6);
            }
            Collections.sort(delays);
            System.out.printf(Locale.ROOT, "fresh -> next cordon over %d handovers (max-unavailable 1): median %.1f ms, p90 %.1f ms, max %.1f ms"
                            + " (from the agent's condition write returning to the test watch seeing the next node unschedulable)%n",
                    delays.size(), median(delays), delays.get((int) Math.floor(0.9 * (delays.size() - 1))), delays.get(delays.size() - 1));
        }
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /** The test driver, noting when each node's fresh attestation was written. */
    static final class TimedDriver implements dev.crifresh.coordinator.driver.RebootDriver {
        private final Harness h;
        private final Map<String, Long> freshAt = new java.util.concurrent.ConcurrentHashMap<>();

        TimedDriver(Harness h) {
            this.h = h;
        }

        @Override
        public void reboot(Node node) {
            String name = node.getMetadata().getName();
            Thread t = new Thread(() -> {
                h.cluster.setReady(name, false);
                h.cluster.setBootId(name, UUID.randomUUID().toString());
                h.cluster.setReady(name, true);
                h.agent.attest(h.cluster, name, Verdict.FRESH, TestAgent.DESIRED);
                freshAt.put(name, System.nanoTime());
            });
            t.start();
        }

        long freshAt(String node) {
            return freshAt.get(node);
        }
    }
}
