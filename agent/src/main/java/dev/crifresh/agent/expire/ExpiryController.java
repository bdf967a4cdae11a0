package dev.crifresh.agent.expire;

import dev.crifresh.agent.kube.ApiException;
import dev.crifresh.agent.kube.ExpiryApi;
import dev.crifresh.agent.kube.LeaseRecord;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the expiry rounds of one agent: every period, on a worker thread, take or renew the Lease
 * ({@link LeaseDecision}); as its holder, list the Nodes and downgrade each condition {@link ExpiryRule} finds
 * without a live proof ({@link ExpiryPatch}). One round at a time; a round the API fails is logged and the
 * next period tries again. Time comes from {@code clock}, so tests run rounds ({@link #round()}) without waiting.
 */
public final class ExpiryController {
    private static final Logger LOG = LoggerFactory.getLogger(ExpiryController.class);

    private final Vertx vertx;
    private final Context context;
    private final ExpiryApi api;
    private final ExpirySettings settings;
    private final Supplier<Instant> clock;
    private long timer = -1;
    private Future<ExpiryRound> running;
    private boolean stopped;
    private boolean wasLeader;
    private boolean failing;

    public ExpiryController(Vertx vertx, Context context, ExpiryApi api, ExpirySettings settings,
                            Supplier<Instant> clock) {
        this.vertx = vertx;
        this.context = context;
        this.api = api;
        this.settings = settings;
        this.clock = clock;
    }

    /** Starts the periodic rounds; the first one runs at once. */
    public void start() {
        context.runOnContext(v -> {
            if (stopped) {
                return;
            }
            roundOnContext();
            timer = vertx.setPeriodic(settings.period().toMillis(), id -> context.runOnContext(x -> roundOnContext()));
        });
    }

    /** Runs a round now, or returns the one in flight. */
    public Future<ExpiryRound> round() {
        Promise<ExpiryRound> result = Promise.promise();
        context.runOnContext(v -> roundOnContext().onComplete(result));
        return result.future();
    }

    private Future<ExpiryRound> roundOnContext() {
        if (running != null) {
            return running;
        }
        if (stopped) {
            return Future.failedFuture("stopped");
        }
        Instant now = clock.get();
        Future<ExpiryRound> round = context.executeBlocking(() -> roundBlocking(now), false);
        running = round;
        round.onComplete(ar -> {
            running = null;
            if (ar.succeeded()) {
                settled(ar.result());
            } else if (!failing) {
                failing = true;
                LOG.warn("[expiry {}] round failed, trying again in {} ms: {}", settings.identity(),
                        settings.period().toMillis(), ar.cause().getMessage());
            }
        });
        return round;
    }

    /** Stops the rounds and waits for the one in flight; a Lease this agent holds runs out by itself after its duration. */
    public Future<Void> stop() {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            stopped = true;
            vertx.cancelTimer(timer);
            Future<ExpiryRound> inFlight = running;
            if (inFlight == null) {
                done.complete();
            } else {
                inFlight.onComplete(ar -> done.complete());
            }
        });
        return done.future();
    }

    private void settled(ExpiryRound round) {
        failing = false;
        if (round.leader() != wasLeader) {
            LOG.info("[expiry {}] {}", settings.identity(), round.leader()
                    ? "holds the Lease " + settings.leaseNamespace() + "/" + settings.leaseName()
                            + ": marks expired conditions Unknown"
                    : "no longer holds the Lease; holder: " + round.holder());
            wasLeader = round.leader();
        }
    }

    private ExpiryRound roundBlocking(Instant now) throws ApiException {
        String me = settings.identity();
        Optional<LeaseRecord> current = api.lease(settings.leaseNamespace(), settings.leaseName());
        LeaseStep step = LeaseDecision.decide(current, me, now, settings.leaseDuration());
        try {
            if (step instanceof LeaseStep.Follow follow) {
                return ExpiryRound.follower(follow.holder());
            } else if (step instanceof LeaseStep.Create create) {
                api.createLease(settings.leaseNamespace(), settings.leaseName(), create.lease());
            } else if (step instanceof LeaseStep.Update update) {
                api.updateLease(settings.leaseNamespace(), settings.leaseName(), current.orElseThrow(), update.next());
                if (update.takeover()) {
                    LOG.info("[expiry {}] took over the Lease from {}", me,
                            current.map(LeaseRecord::holder).orElse("nobody"));
                }
            } else {
                throw new IllegalStateException("unknown lease step " + step);
            }
        } catch (ApiException e) {
            if (e.code() == 409 || e.code() == 422) {
                return ExpiryRound.follower("another candidate (it wrote the Lease first)");
            }
            throw e;
        }
        List<Node> nodes = api.listNodes();
        List<String> downgraded = new ArrayList<>();
        for (Node node : nodes) {
            Judgement judgement = ExpiryRule.judge(node, now, me);
            if (judgement instanceof Judgement.Downgrade downgrade) {
                String name = node.getMetadata().getName();
                try {
                    api.patchStatus(name, ExpiryPatch.build(node, downgrade, now));
                    downgraded.add(name);
                    LOG.info("[expiry {}] {}: condition {} marked Unknown/{}: {}", me, name,
                            downgrade.before().getStatus(), ExpiryRule.REASON, downgrade.message()
                                    .split(";", 2)[0]);
                } catch (ApiException e) {
                    if (!e.rejected()) {
                        throw e;
                    }
                    // the Node's agent (or another leader) wrote first: the next round reads it again
                    LOG.info("[expiry {}] {}: condition changed while marking it, left as it is", me, name);
                }
            } else if (!(judgement instanceof Judgement.Leave) && !(judgement instanceof Judgement.Live)) {
                throw new IllegalStateException("unknown judgement " + judgement);
            }
        }
        return new ExpiryRound(true, me, nodes.size(), downgraded);
    }
}
