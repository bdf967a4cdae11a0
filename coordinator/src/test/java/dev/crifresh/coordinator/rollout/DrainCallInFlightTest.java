package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.Coordinator;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.MarkerRule;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.kube.Fabric8EventOps;
import dev.crifresh.coordinator.kube.Fabric8LeaseLock;
import dev.crifresh.coordinator.kube.Fabric8NodeOps;
import dev.crifresh.coordinator.kube.Fabric8PodOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.rollout.run.Rollout;
import dev.crifresh.coordinator.rollout.run.RunContext;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A drain call still in flight after the drain ended (its pod watch still starting when a list already found
 * the node empty) or while the node goes away (an eviction unanswered) must not make the node's roll deaf:
 * the node's return, its attestation and its deletion are acted on at once. The drain drops the late answers
 * itself. (Before: every node update was ignored while any drain call was in flight, so a node that came back
 * and attested meanwhile was waited for until {@code --reboot-timeout}/{@code --attest-timeout} ran out, its
 * last seen attestation naming the boot before the reboot; and a node deleted mid-drain was noticed only when
 * the drain timed out.)
 */
class DrainCallInFlightTest {
    private final Harness h = new Harness();
    /** Calls of the pod operations held unanswered until the test ends. */
    private final List<Promise<?>> held = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        held.forEach(p -> p.tryFail("test over"));
        h.close();
    }

    @Test
    void aNodeThatReturnsAndAttestsWhileItsDrainsPodWatchIsStillStartingIsVerifiedAndReleased() throws Exception {
        h.worker("w1", Verdict.STALE);
        HeldPods pods = new HeldPods(new Fabric8PodOps(context(), h.cluster.client, false), true, false);
        // Short waits: without the fix the run fails when they run out; with it, it never waits that long.
        CoordinatorSettings settings = settings().toBuilder().rebootTimeout(Duration.ofSeconds(8)).stallTimeout(Duration.ofSeconds(8)).attestTimeout(Duration.ofSeconds(8)).build();

        Report r = rollout(pods, settings).get(60, TimeUnit.SECONDS);

        assertEquals(1, pods.watches.get(), "the drain never started its pod watch");
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome(), r.toJson());
        assertEquals(List.of("w1"), h.driver.reboots());
        assertFalse(Boolean.TRUE.equals(h.cluster.node("w1").getSpec().getUnschedulable()), "w1 left cordoned");
        assertNull(h.cluster.node("w1").getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
    }

    /**
     * A node deleted mid-drain (a scale-down) is acted on at once, not when the drain times out: it is reported
     * {@code deleted} and does not fail the run (its containerd is gone with it). w2 is fresh, so the run has
     * nothing else to roll and its end shows how soon the deletion was noticed.
     */
    @Test
    void aNodeDeletedWhileAnEvictionIsInFlightIsReportedDeletedAtOnce() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.FRESH);
        h.cluster.addPod("shop", "db-0", "w1");
        HeldPods pods = new HeldPods(new Fabric8PodOps(context(), h.cluster.client, false), false, true);
        var report = rollout(pods, settings());

        Poll.until(Duration.ofSeconds(30), "w1's eviction to be sent", () -> pods.evictions.get() > 0);
        h.cluster.test.nodes().withName("w1").delete();
        // Well before --drain-timeout (20 s), after which the drain would have failed on its own.
        Report r = report.get(15, TimeUnit.SECONDS);

        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.DELETED, line(r, "w1").outcome(), r.toJson());
        assertEquals("the node was deleted during its rollout (while draining)", line(r, "w1").detail());
        assertEquals(List.of(), h.driver.reboots());
        assertNull(h.cluster.node("w2").getMetadata().getAnnotations() == null ? null
                : h.cluster.node("w2").getMetadata().getAnnotations().get(CrifreshAnnotations.ROLLOUT));
    }

    private Context context;

    private Context context() {
        if (context == null) {
            context = h.cluster.vertx.getOrCreateContext();
        }
        return context;
    }

    private static CoordinatorSettings settings() {
        return Harness.fastSettings().toBuilder().leaseDuration(Duration.ofSeconds(15)).build();
    }

    private java.util.concurrent.CompletableFuture<Report> rollout(PodOps pods, CoordinatorSettings settings) {
        var client = h.cluster.client;
        Context ctx = context();
        NodeClassifier classifier = new NodeClassifier(new AttestationVerifier(h.agent.trust, settings.selection().clockSkew()),
                settings.selection().registry(), h.agent.fingerprint(TestAgent.DESIRED),
                new MarkerRule(settings.marker().annotation(), settings.marker().currentValue()));
        Promise<Report> report = Promise.promise();
        ctx.runOnContext(v -> new Rollout(new RunContext(h.cluster.vertx, ctx, new RunContext.Io(
                new Fabric8NodeOps(ctx, client, settings.selection().nodeSelector()), pods,
                new Fabric8LeaseLock(ctx, client, settings.lease().namespace(), Coordinator.LEASE_NAME, settings.lease().runId(),
                        settings.lease().leaseDuration(), Clock.systemUTC()),
                new Fabric8EventOps(ctx, client), h.driver), classifier, settings, h.progress::add, Clock.systemUTC(),
                new RunContext.Options(Gates.none(h.cluster.vertx, ctx), null, null, null)))
                .run().onComplete(report));
        return report.future().toCompletionStage().toCompletableFuture();
    }

    /** The real pod operations, with the pod watch's start or every eviction left unanswered while the test runs. */
    private final class HeldPods implements PodOps {
        /** The real operations; gated by the run (the test keeps this instance, so it is replaced in place). */
        private PodOps real;
        private final boolean holdWatch;
        private final boolean holdEvictions;
        final AtomicInteger watches = new AtomicInteger();
        final AtomicInteger evictions = new AtomicInteger();

        HeldPods(PodOps real, boolean holdWatch, boolean holdEvictions) {
            this.real = real;
            this.holdWatch = holdWatch;
            this.holdEvictions = holdEvictions;
        }

        @Override
        public PodOps gated(WriteGate gate) {
            real = real.gated(gate);
            return this;
        }

        @Override
        public Future<List<Pod>> podsOn(String node) {
            return real.podsOn(node);
        }

        @Override
        public Future<PodWatch> watchPodsOn(String node, Runnable changed) {
            watches.incrementAndGet();
            return holdWatch ? hold() : real.watchPodsOn(node, changed);
        }

        @Override
        public Future<Eviction> evict(String namespace, String name) {
            evictions.incrementAndGet();
            return holdEvictions ? hold() : real.evict(namespace, name);
        }

        private <T> Future<T> hold() {
            Promise<T> p = Promise.promise();
            held.add(p);
            return p.future();
        }
    }
}
