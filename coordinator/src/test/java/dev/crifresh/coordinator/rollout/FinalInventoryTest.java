package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.Coordinator;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.MarkerRule;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.kube.Fabric8EventOps;
import dev.crifresh.coordinator.kube.Fabric8LeaseLock;
import dev.crifresh.coordinator.kube.Fabric8NodeOps;
import dev.crifresh.coordinator.kube.Fabric8PodOps;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.rollout.run.Rollout;
import dev.crifresh.coordinator.rollout.run.RunContext;
import dev.crifresh.coordinator.gate.Gates;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The run ends only after a final read of the nodes shows every selected node fresh or reported: a node
 * the informer never delivered (its events lost or late) is found by that read and handled like a joiner.
 */
class FinalInventoryTest {
    private final Harness h = new Harness();

    @AfterEach
    void close() {
        h.close();
    }

    /**
     * Node operations whose informer does not deliver one node — not in its first snapshot, no events —
     * until the run lists the nodes (its final inventory read): a late informer. list() and get() see everything.
     */
    private static NodeOps hiding(NodeOps delegate, String hidden) {
        return hiding(delegate, hidden, new java.util.concurrent.atomic.AtomicBoolean());
    }

    private static NodeOps hiding(NodeOps delegate, String hidden, java.util.concurrent.atomic.AtomicBoolean revealed) {
        return new NodeOps() {
            @Override
            public Future<List<Node>> list() {
                revealed.set(true);
                return delegate.list();
            }

            @Override
            public Future<List<Node>> listAll() {
                return delegate.listAll();
            }

            @Override
            public Future<Node> get(String name) {
                return delegate.get(name);
            }

            @Override
            public Future<Node> mergePatch(String name, String patch) {
                return delegate.mergePatch(name, patch);
            }

            @Override
            public Future<Node> jsonPatch(String name, String patch) {
                return delegate.jsonPatch(name, patch);
            }

            @Override
            public Future<NodeWatch> watch(NodeEvents events) {
                return delegate.watch(new NodeEvents() {
                    @Override
                    public void upsert(Node node) {
                        if (revealed.get() || !hidden.equals(node.getMetadata().getName())) {
                            events.upsert(node);
                        }
                    }

                    @Override
                    public void deleted(String name) {
                        events.deleted(name);
                    }
                }).map(w -> new NodeWatch() {
                    @Override
                    public List<Node> snapshot() {
                        return w.snapshot().stream().filter(n -> !hidden.equals(n.getMetadata().getName())).toList();
                    }

                    @Override
                    public void close() {
                        w.close();
                    }
                });
            }

            @Override
            public Future<NodeWatch> watchAll(NodeEvents events) {
                return delegate.watchAll(events);
            }

            @Override
            public NodeOps gated(WriteGate gate) {
                return hiding(delegate.gated(gate), hidden, revealed);
            }
        };
    }

    private Report rollout(String hidden, CoordinatorSettings settings) throws Exception {
        var client = h.cluster.client;
        Context context = h.cluster.vertx.getOrCreateContext();
        NodeClassifier classifier = new NodeClassifier(new AttestationVerifier(h.agent.trust, settings.selection().clockSkew()),
                settings.selection().registry(), h.agent.fingerprint(TestAgent.DESIRED),
                new MarkerRule(settings.marker().annotation(), settings.marker().currentValue()));
        Promise<Report> report = Promise.promise();
        context.runOnContext(v -> new Rollout(new RunContext(h.cluster.vertx, context, new RunContext.Io(
                hiding(new Fabric8NodeOps(context, client, settings.selection().nodeSelector()), hidden),
                new Fabric8PodOps(context, client, settings.selection().podFieldSelector()),
                new Fabric8LeaseLock(context, client, settings.lease().namespace(), Coordinator.LEASE_NAME, settings.lease().runId(),
                        settings.lease().leaseDuration(), Clock.systemUTC()),
                new Fabric8EventOps(context, client), h.driver), classifier, settings, h.progress::add, Clock.systemUTC(),
                new RunContext.Options(Gates.none(h.cluster.vertx, context), null, null, null)))
                .run().onComplete(report));
        return report.future().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static CoordinatorSettings settings() {
        return Harness.fastSettings().toBuilder().leaseDuration(Duration.ofSeconds(15)).build();
    }

    @Test
    void aFreshNodeTheInformerNeverDeliveredIsFoundByTheFinalReadAndReported() throws Exception {
        h.worker("w1", Verdict.STALE);
        h.worker("w-unseen", Verdict.FRESH);
        Report r = rollout("w-unseen", settings());
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertEquals(Outcome.SKIPPED, line(r, "w-unseen").outcome(), r.toJson());
        assertEquals(List.of("w-unseen"), r.joinedDuringRun());
        assertEquals(List.of("w1"), h.driver.reboots());
        assertTrue(h.progress.stream().anyMatch(l -> l.startsWith("final inventory: 2 selected node(s)")),
                String.join("\n", h.progress));
    }

    @Test
    void aStaleNodeTheInformerNeverDeliveredIsStillRebootedBeforeTheRunEnds() throws Exception {
        h.worker("w0", Verdict.FRESH);
        h.worker("w-unseen", Verdict.STALE);
        Report r = rollout("w-unseen", settings());
        assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w-unseen").outcome(), r.toJson());
        assertEquals(List.of("w-unseen"), h.driver.reboots());
    }
}
