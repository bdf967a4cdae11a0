package dev.crifresh.agent.publish;

import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.http.AgentMetrics;
import dev.crifresh.agent.http.RolloutMarks;
import dev.crifresh.agent.kube.ApiException;
import dev.crifresh.agent.kube.NodeApi;
import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.common.retry.Retry;
import dev.crifresh.common.retry.RetryPolicy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the ContainerdConfigFresh condition of one Node (docs/design.md, "The attestation and its verifier"). Publishes when the assessment's
 * {@link PublishKey} changes and on every heartbeat, never before the first assessment; re-publishes
 * when the watched Node shows our entry removed or different from what we wrote. A patch the server rejects (a
 * concurrent writer) is decided again on a fresh read after {@link #CONFLICT}'s delay, at most
 * {@link #MAX_CONFLICT_RETRIES} times in a row; other API failures, and a rejection beyond those, are retried with the
 * given {@link RetryPolicy}. Each loop keeps its {@link Retry}; every retry publishes the latest assessment. State lives
 * on one Vert.x context; API calls run on worker threads.
 */
public final class ConditionPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(ConditionPublisher.class);
    /** Guarded patches rejected in a row (a concurrent writer) before falling back to the backoff. */
    static final int MAX_CONFLICT_RETRIES = 3;
    /** The wait before a rejected patch is decided again on a fresh read: 10 ms, as client-go's retry.DefaultRetry. */
    static final RetryPolicy CONFLICT = RetryPolicy.constant(Duration.ofMillis(10));

    private final Vertx vertx;
    private final Context context;
    private final NodeApi api;
    private final PublishSettings settings;
    private final AttestationSigner signer;
    private final HostClock clock;
    private final AgentMetrics metrics;
    private final RetryPolicy backoff;
    private final String node;

    private Assessment latest;
    private PublishKey publishedKey;
    private Written lastWritten;
    private boolean dirty;
    private boolean inFlight;
    private boolean recheckAfterFlight;
    private boolean confirming;
    private long retryTimer = -1;
    /** The API failures in a row (null: the last publish succeeded), with {@link #backoff}. */
    private Retry failures;
    /** The rejected patches in a row (null: none), with {@link #CONFLICT}. */
    private Retry conflicts;
    private Long pendingChangeNanos;
    private boolean stopped;
    private boolean watchFailing;
    private AutoCloseable watch;
    private Promise<Void> idle;
    private volatile PublishedAttestation published;
    private volatile boolean everPublished;

    /** What we last wrote, to recognise our own entry on the watched Node. */
    private record Written(String status, String reason, String message) {
        static Written of(NodeCondition c) {
            return new Written(c.getStatus(), c.getReason(), c.getMessage());
        }
    }

    /** claims and token are null when the condition went out unsigned ({@link UnsignedCondition}). */
    private record Outcome(AttestationClaims claims, String token, Written written, boolean transition) {
        boolean signed() {
            return token != null;
        }
    }

    public ConditionPublisher(Vertx vertx, Context context, NodeApi api, PublishSettings settings,
                              AttestationSigner signer, HostClock clock, AgentMetrics metrics, RetryPolicy backoff) {
        this.vertx = vertx;
        this.context = context;
        this.api = api;
        this.settings = settings;
        this.signer = signer;
        this.clock = clock;
        this.metrics = metrics;
        this.backoff = backoff;
        this.node = settings.nodeName();
    }

    /** Starts watching the own Node. */
    public Future<Void> start() {
        return context.<AutoCloseable>executeBlocking(() -> api.watch(node,
                n -> context.runOnContext(v -> nodeSeen(n)),
                t -> context.runOnContext(v -> watchFailed(t))), false)
                .map(w -> {
                    if (stopped) {
                        closeQuietly(w); // stopped while the watch was being set up
                    } else {
                        watch = w;
                    }
                    return null;
                });
    }

    private static void closeQuietly(AutoCloseable w) {
        try {
            w.close();
        } catch (Exception e) {
            // stopping: nothing left to do with a failed close
        }
    }

    /** A new assessment from the loop (on the context). */
    public void offer(Assessment assessment, boolean heartbeat, Long changeSeenNanos) {
        if (stopped) {
            return;
        }
        latest = assessment;
        if (changeSeenNanos != null && (pendingChangeNanos == null || changeSeenNanos < pendingChangeNanos)) {
            pendingChangeNanos = changeSeenNanos;
        }
        boolean changed = !PublishKey.of(assessment).equals(publishedKey);
        if (heartbeat || changed) {
            dirty = true;
            maybePublish();
        } else if (!dirty && !inFlight && pendingChangeNanos != null
                && pendingChangeNanos <= assessment.evaluatedNanos()) {
            pendingChangeNanos = null; // the change left the published condition as it is
        }
    }

    /** Whether a condition (signed or not) has been written since start. */
    public boolean ready() {
        return everPublished;
    }

    /** The attestation of the last write; empty before the first write and after an unsigned one. */
    public Optional<PublishedAttestation> published() {
        return Optional.ofNullable(published);
    }

    public Future<Void> stop() {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            stopped = true;
            vertx.cancelTimer(retryTimer);
            AutoCloseable w = watch;
            watch = null;
            Future<Void> closed = w == null ? Future.succeededFuture() : context.executeBlocking(() -> {
                w.close();
                return null;
            }, false);
            closed.onComplete(ar -> {
                if (inFlight || confirming) {
                    idle = done;
                } else {
                    done.complete();
                }
            });
        });
        return done.future();
    }

    private void maybePublish() {
        if (stopped || inFlight || retryTimer >= 0 || !dirty || latest == null) {
            return;
        }
        inFlight = true;
        dirty = false;
        Assessment snapshot = latest;
        context.executeBlocking(() -> publishBlocking(snapshot), false).onComplete(ar -> {
            inFlight = false;
            if (ar.succeeded()) {
                succeeded(snapshot, ar.result());
            } else if (!conflicted(ar.cause())) {
                failed(ar.cause());
            }
            if (recheckAfterFlight) {
                recheckAfterFlight = false;
                confirm();
            }
            settleIfIdle();
            maybePublish();
        });
    }

    private Outcome publishBlocking(Assessment a) throws ApiException {
        Evaluation e = a.evaluation();
        Node current;
        try {
            current = api.get(node);
        } catch (ApiException ex) {
            metrics.apiError("get");
            throw ex;
        }
        if (current == null) {
            metrics.apiError("get");
            throw new ApiException(404, "Node " + node + " does not exist", null);
        }
        Instant now = clock.wallNow();
        AttestationClaims claims = null;
        String token = null;
        String unsignable = UnsignedCondition.problem(a);
        if (unsignable == null) {
            try {
                claims = ClaimsFactory.claims(a, node, current.getMetadata().getUid(), now,
                        settings.validity(), settings.rules().margin(), settings.agentVersion());
                token = signer.sign(claims);
            } catch (RuntimeException ex) {
                claims = null;
                unsignable = "the attestation could not be signed (" + ex.getMessage() + ")";
            }
        }
        DesiredCondition desired = token != null
                ? ConditionPatch.desired(current, e.verdict().conditionStatus(), e.reason().code(),
                        AttestationMessage.format(e.message(), token), now)
                : ConditionPatch.desired(current, Verdict.UNKNOWN.conditionStatus(),
                        UnsignedCondition.reason(e).code(), UnsignedCondition.message(e, unsignable), now);
        NodeCondition before = ConditionPatch.ours(current);
        try {
            api.patchStatus(node, ConditionPatch.build(current, desired));
        } catch (ApiException ex) {
            metrics.apiError("patch");
            throw ex;
        }
        boolean transition = before == null || !desired.status().equals(before.getStatus());
        return new Outcome(claims, token, new Written(desired.status(), desired.reason(), desired.message()), transition);
    }

    /**
     * A patch the server rejected (a concurrent writer changed the Node between our read and our patch): publish
     * again on a fresh read after {@link #CONFLICT}'s delay, unless {@link #MAX_CONFLICT_RETRIES} rejections in a row
     * were retried already (then false: the caller backs off as after any failure).
     */
    private boolean conflicted(Throwable cause) {
        if (!(cause instanceof ApiException ex && ex.rejected())) {
            conflicts = null;
            return false;
        }
        Retry next = (conflicts == null ? Retry.first(CONFLICT, System.nanoTime() / 1_000_000) : conflicts).failed();
        if (next.failures() > MAX_CONFLICT_RETRIES) {
            conflicts = null;
            return false;
        }
        conflicts = next;
        dirty = true;
        metrics.publishFailed("conflict");
        LOG.info("[{}] condition patch rejected ({}), re-reading the Node in {} ms", node, ex.code(), next.delay().toMillis());
        retryLater(next.delay());
        return true;
    }

    private void succeeded(Assessment snapshot, Outcome outcome) {
        boolean recovered = failures != null;
        failures = null;
        conflicts = null;
        Evaluation e = snapshot.evaluation();
        boolean asEvaluated = outcome.written().status().equals(e.verdict().conditionStatus())
                && outcome.written().reason().equals(e.reason().code());
        // A downgraded write does not stand for the assessment: the next one is published whatever its key.
        publishedKey = asEvaluated ? PublishKey.of(snapshot) : null;
        lastWritten = outcome.written();
        if (outcome.signed()) {
            published = new PublishedAttestation(outcome.claims(), outcome.token());
            metrics.publishSucceeded(outcome.claims().iat(), outcome.claims().exp());
        } else {
            published = null;
            metrics.publishedWithoutAttestation(clock.wallNow());
        }
        everPublished = true;
        if (pendingChangeNanos != null && pendingChangeNanos <= snapshot.evaluatedNanos()) {
            metrics.detectionLatency(Duration.ofNanos(System.nanoTime() - pendingChangeNanos));
            pendingChangeNanos = null;
        }
        LOG.info("[{}] published condition status={} reason={}{}{}, {}", node,
                outcome.written().status(), outcome.written().reason(), outcome.transition() ? " (status changed)" : "",
                recovered ? " (API reachable again)" : "", outcome.signed()
                        ? "attestation expires " + outcome.claims().exp() : "without attestation");
    }

    private void failed(Throwable cause) {
        failures = (failures == null ? Retry.first(backoff, System.nanoTime() / 1_000_000) : failures).failed();
        dirty = true;
        metrics.publishFailed("error");
        Duration delay = failures.delay();
        LOG.warn("[{}] publish failed (attempt {}), retrying in {} ms: {}", node, failures.failures(), delay.toMillis(),
                cause instanceof ApiException ? cause.getMessage() : cause.toString());
        retryLater(delay);
    }

    private void retryLater(Duration delay) {
        if (!stopped) {
            retryTimer = vertx.setTimer(Math.max(1, delay.toMillis()), id -> {
                retryTimer = -1;
                maybePublish();
            });
        }
    }

    private void nodeSeen(Node n) {
        watchFailing = false;
        metrics.nodeSeen(RolloutMarks.of(n));
        if (stopped || lastWritten == null) {
            return; // nothing of ours to defend before the first publish
        }
        if (holdsExactlyWhatWeWrote(n)) {
            return;
        }
        if (inFlight) {
            recheckAfterFlight = true; // our own write may be what this event predates
            return;
        }
        confirm();
    }

    /** One entry of our type, equal to our last write: a second entry (a replay) counts as overwritten. */
    private boolean holdsExactlyWhatWeWrote(Node n) {
        NodeCondition ours = ConditionPatch.ours(n);
        return ours != null && entriesOfOurType(n) == 1 && Written.of(ours).equals(lastWritten);
    }

    private static long entriesOfOurType(Node n) {
        return n.getStatus() == null || n.getStatus().getConditions() == null ? 0
                : n.getStatus().getConditions().stream()
                        .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType())).count();
    }

    /**
     * The watch showed our entry missing or different. Events can lag behind our own writes, so read
     * the Node now before deciding that someone else removed or overwrote the entry.
     */
    private void confirm() {
        if (stopped || confirming) {
            return;
        }
        confirming = true;
        context.executeBlocking(() -> Optional.ofNullable(api.get(node)), false).onComplete(ar -> {
            confirming = false;
            if (ar.failed()) {
                metrics.apiError("get");
                dirty = true; // cannot tell: write again, the publish path retries with backoff
            } else if (ar.result().isPresent()) {
                NodeCondition ours = ConditionPatch.ours(ar.result().get());
                if (ours != null && entriesOfOurType(ar.result().get()) > 1) {
                    LOG.info("[{}] another writer added a second {} entry, publishing again", node,
                            ConditionContract.CONDITION_TYPE);
                    dirty = true;
                } else if (ours == null) {
                    LOG.info("[{}] condition {} was removed, publishing again", node, ConditionContract.CONDITION_TYPE);
                    dirty = true;
                } else if (!Written.of(ours).equals(lastWritten)) {
                    LOG.info("[{}] condition was overwritten by another writer (reason {}), publishing again", node,
                            Objects.toString(ours.getReason(), "none"));
                    dirty = true;
                }
            }
            settleIfIdle();
            maybePublish();
        });
    }

    private void watchFailed(Throwable t) {
        if (stopped) {
            return; // the watch was closed by stop(); its connection ending is no failure
        }
        metrics.apiError("watch");
        if (!watchFailing) {
            watchFailing = true;
            LOG.warn("[{}] watch on the Node failed, retrying: {}", node, t.toString());
        }
    }

    private void settleIfIdle() {
        if (idle != null && !inFlight && !confirming) {
            Promise<Void> p = idle;
            idle = null;
            p.complete();
        }
    }
}
