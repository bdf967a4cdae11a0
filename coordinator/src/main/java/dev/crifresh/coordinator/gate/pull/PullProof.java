package dev.crifresh.coordinator.gate.pull;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.base.GateVerdict;
import dev.crifresh.coordinator.time.Ticker;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runtime pull proof: a short-lived pod pinned to the node ({@code spec.nodeName}, so no scheduler and no
 * taint stands in the way; it tolerates every taint anyway) whose image is {@code --pull-proof-image}, a
 * private image on the rotated registry, pulled with {@code imagePullPolicy: Always} and <b>no
 * imagePullSecrets</b> — so the kubelet can only pull it with the credential the node's running containerd
 * holds. The node passes when the image was pulled; a pull error ({@code ErrImagePull},
 * {@code ImagePullBackOff}, …) fails it with the kubelet's message, and so does no pull within
 * {@code --pull-proof-timeout}. The pod is deleted however the proof ends; pods of an interrupted run carry
 * the probe labels and are deleted by the next run ({@link #deleteLeftovers}). Every method runs on the run's
 * context.
 */
public final class PullProof {
    public static final Map<String, String> PROBE_LABELS = Map.of(
            "app.kubernetes.io/managed-by", "crifresh",
            "app.kubernetes.io/component", "pull-proof");
    public static final String NODE_ANNOTATION = "crifresh.dev/pull-proof-node";
    public static final String RUN_ANNOTATION = "crifresh.dev/run";

    private final Ticker ticker;
    private final ProbePods pods;
    private final String image;
    private final Duration timeout;
    private final String runId;
    private final Set<String> live = new LinkedHashSet<>();
    private int created;

    public PullProof(Ticker ticker, ProbePods pods, String image, Duration timeout, String runId) {
        this.ticker = ticker;
        this.pods = pods;
        this.image = image;
        this.timeout = timeout;
        this.runId = runId;
    }

    /** Deletes every probe pod in the namespace: made by an earlier, interrupted run (this run holds the Lease). */
    public Future<Integer> deleteLeftovers() {
        return pods.probes().compose(list -> {
            List<Future<Void>> deletes = list.stream().map(p -> p.getMetadata().getName())
                    .filter(n -> !live.contains(n)).map(pods::delete).toList();
            return Future.all(deletes).map(v -> deletes.size());
        });
    }

    /** Proves that the node's containerd pulls {@code image} with what it holds now. */
    public Future<GateVerdict> prove(String node, String nodeUid) {
        Pod pod = probe(node, nodeUid);
        String name = pod.getMetadata().getName();
        Promise<GateVerdict> result = Promise.promise();
        long started = ticker.nanoTime();
        live.add(name);
        pods.create(pod).onComplete(created -> {
            if (created.failed()) {
                result.tryComplete(GateVerdict.failed("pull proof: could not create the probe pod: "
                        + created.cause().getMessage()));
                live.remove(name);
                return;
            }
            var secrets = created.result().getSpec() == null ? null : created.result().getSpec().getImagePullSecrets();
            if (secrets != null && !secrets.isEmpty()) {
                result.tryComplete(GateVerdict.failed("pull proof: the probe pod got imagePullSecrets (from the probe"
                        + " namespace's default ServiceAccount), so it would not test the node's containerd credential;"
                        + " use a namespace whose default ServiceAccount has none"));
                return;
            }
            long timer = ticker.setTimer(timeout, () -> result.tryComplete(GateVerdict.failed(
                    "pull proof: " + image + " was not pulled within " + DurationText.format(timeout))));
            pods.watch(name, p -> {
                if (p == null) {
                    result.tryComplete(GateVerdict.failed("pull proof: the probe pod was deleted before " + image
                            + " was pulled"));
                    return;
                }
                PullState state = PullState.of(p);
                if (state.kind() == PullState.Kind.PULLED) {
                    result.tryComplete(GateVerdict.passed("pull proof passed: the node pulled " + image + " with its"
                            + " containerd credential (" + millis(started) + ")"));
                } else if (state.kind() == PullState.Kind.FAILED) {
                    result.tryComplete(GateVerdict.failed("pull proof failed: " + state.reason() + ": "
                            + (state.message() == null ? "(no message)" : state.message())));
                }
            }).onComplete(watch -> {
                if (watch.failed()) {
                    result.tryComplete(GateVerdict.failed("pull proof: cannot watch the probe pod: "
                            + watch.cause().getMessage()));
                }
                result.future().onComplete(done -> {
                    ticker.cancelTimer(timer);
                    if (watch.succeeded()) {
                        watch.result().close();
                    }
                });
            });
        });
        return result.future().compose(verdict -> pods.delete(name).transform(deleted -> {
            live.remove(name);
            if (deleted.failed()) {
                return Future.succeededFuture(new GateVerdict(verdict.pass(), verdict.detail()
                        + "; the probe pod " + name + " could not be deleted (" + deleted.cause().getMessage()
                        + "), the next run deletes it", verdict.timedOut()));
            }
            return Future.succeededFuture(verdict);
        }));
    }

    /** Deletes the probe pods still in flight (the run ends early). */
    public Future<Void> deleteLive() {
        List<Future<Void>> deletes = List.copyOf(live).stream().map(pods::delete).toList();
        live.clear();
        return Future.join(deletes).mapEmpty();
    }

    Pod probe(String node, String nodeUid) {
        created++;
        String name = "crifresh-pull-proof-" + shortHash(node + "/" + runId + "/" + created);
        PodBuilder pod = new PodBuilder()
                .withNewMetadata().withName(name).withLabels(PROBE_LABELS)
                .addToAnnotations(NODE_ANNOTATION, node).addToAnnotations(RUN_ANNOTATION, runId)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withTerminationGracePeriodSeconds(0L)
                // The pod ends itself even if nobody is left to delete it.
                .withActiveDeadlineSeconds(Math.max(60L, timeout.toSeconds() + 60L))
                .addNewToleration().withOperator("Exists").endToleration()
                .addNewContainer().withName("pull-proof").withImage(image).withImagePullPolicy("Always")
                // Only the pull counts: an image without `true` fails after the pull, which still passes.
                .withCommand("true")
                .withNewResources().addToRequests("cpu", new Quantity("1m")).addToRequests("memory", new Quantity("8Mi"))
                .endResources()
                .endContainer()
                .endSpec();
        if (nodeUid != null) {
            // Garbage-collected with its node; no blockOwnerDeletion (that needs more RBAC).
            pod.editMetadata().addNewOwnerReference().withApiVersion("v1").withKind("Node").withName(node)
                    .withUid(nodeUid).endOwnerReference().endMetadata();
        }
        return pod.build();
    }

    private String millis(long startedNanos) {
        return DurationText.format(Duration.ofMillis(Math.max(1, ticker.since(startedNanos).toMillis())));
    }

    private static String shortHash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
