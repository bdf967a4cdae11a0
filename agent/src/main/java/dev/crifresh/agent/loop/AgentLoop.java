package dev.crifresh.agent.loop;

import dev.crifresh.agent.host.HostReader;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.retry.Retry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event-driven evaluator. Triggers: a watched file changed (debounced), the periodic probe saw the
 * tracked containerd go away or a file's attributes move, the kubelet witness changed its conclusion, the heartbeat. Evaluations run one at a
 * time on a worker thread; triggers that arrive meanwhile coalesce into one follow-up evaluation. An evaluation that
 * caught a watched file mid-write is not handed on: the node is read again on a timer ({@link Reread}). All
 * state lives on one Vert.x context.
 */
public final class AgentLoop {
    private static final Logger LOG = LoggerFactory.getLogger(AgentLoop.class);

    /** Receives every evaluation on the loop's context. */
    public interface Listener {
        /**
         * @param heartbeat         the heartbeat asked for this evaluation: publish even if nothing changed
         * @param changeSeenNanos   {@link System#nanoTime()} when the earliest config change it covers was
         *                          seen, or null when no config change triggered it
         */
        void evaluated(Assessment assessment, boolean heartbeat, Long changeSeenNanos);
    }

    private final Vertx vertx;
    private final Context context;
    private final LoopSettings settings;
    private final Evaluator evaluator;
    private final ChangeProbe probe;
    private final ConfigWatcher watcher;
    private final Listener listener;
    private final String node;

    private boolean stopped;
    private boolean evaluating;
    private boolean pollInFlight;
    private boolean rerun;
    private boolean pendingHeartbeat;
    private Long pendingChangeNanos;
    private String pendingWhy;
    private long debounceTimer = -1;
    private long pollTimer = -1;
    private long heartbeatTimer = -1;
    private long rereadTimer = -1;
    /** The re-reads in a row of evaluations that caught a file mid-write; null when the last one did not. */
    private Retry reread;
    private ChangeProbe.Baseline baseline;
    private Evaluation lastLogged;
    private Promise<Void> idle;

    public AgentLoop(Vertx vertx, Context context, LoopSettings settings, Evaluator evaluator, Listener listener) {
        this.vertx = vertx;
        this.context = context;
        this.settings = settings;
        this.evaluator = evaluator;
        this.listener = listener;
        this.node = settings.nodeName();
        HostReader reader = evaluator.reader();
        this.probe = new ChangeProbe(reader, settings.matcher());
        this.watcher = new ConfigWatcher(reader.globs(), reader.paths(), reader::hostsDirectories,
                this::fileEventOnWatcherThread,
                "crifresh-watch-" + settings.nodeName());
    }

    /** Starts watching and runs the first evaluation. Completes once the watcher is registered. */
    public Future<Void> start() {
        Promise<Void> started = Promise.promise();
        context.runOnContext(v -> context.<Void>executeBlocking(() -> {
            try {
                watcher.start();
            } catch (IOException e) {
                // e.g. the per-user inotify instance limit: the poll still sees every change, only later
                LOG.warn("[{}] file events unavailable ({}); config changes are found by the poll every {} ms",
                        node, e.getMessage(), settings.procPoll().toMillis());
            }
            return null;
        }, false).onComplete(ar -> {
            if (ar.failed()) {
                started.fail(ar.cause());
                return;
            }
            pollTimer = vertx.setPeriodic(settings.procPoll().toMillis(), id -> poll());
            heartbeatTimer = vertx.setPeriodic(settings.heartbeat().toMillis(), id -> request("heartbeat", true, null));
            request("start", true, null);
            started.complete();
        }));
        return started.future();
    }

    /** Stops timers and the watcher; completes after an evaluation in flight has finished. */
    public Future<Void> stop() {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            stopped = true;
            vertx.cancelTimer(pollTimer);
            vertx.cancelTimer(heartbeatTimer);
            vertx.cancelTimer(debounceTimer);
            vertx.cancelTimer(rereadTimer);
            watcher.close();
            if (evaluating || pollInFlight) {
                idle = done;
            } else {
                done.complete();
            }
        });
        return done.future();
    }

    /** Asks for an evaluation from any thread (the kubelet witness changed its conclusion); coalesces as usual. */
    public void evaluateSoon(String why) {
        context.runOnContext(v -> request(why, false, null));
    }

    private void fileEventOnWatcherThread(String path) {
        long seen = System.nanoTime();
        context.runOnContext(v -> fileChanged(path, seen));
    }

    private void fileChanged(String path, long seenNanos) {
        if (stopped) {
            return;
        }
        LOG.info("[{}] config change seen: {}", node, path);
        if (pendingChangeNanos == null || seenNanos < pendingChangeNanos) {
            pendingChangeNanos = seenNanos;
        }
        if (debounceTimer < 0) {
            // Trailing delay from the first event, not reset by later ones: a steady stream of writes
            // cannot postpone the evaluation; writes during the read trigger another evaluation.
            long delay = Math.max(1, settings.debounce().toMillis());
            debounceTimer = vertx.setTimer(delay, id -> {
                debounceTimer = -1;
                request("config file event", false, null);
            });
        }
    }

    private void poll() {
        if (stopped || evaluating || pollInFlight || baseline == null) {
            return;
        }
        pollInFlight = true;
        ChangeProbe.Baseline current = baseline;
        context.<Optional<String>>executeBlocking(() -> {
            watcher.registerMissing();
            return probe.changedSince(current);
        }, false).onComplete(ar -> {
            pollInFlight = false;
            if (ar.succeeded() && ar.result().isPresent()) {
                String why = ar.result().get();
                LOG.info("[{}] poll: {}", node, why);
                request(why, false, why.startsWith("a watched file") ? System.nanoTime() : null);
            } else if (ar.failed()) {
                LOG.warn("[{}] poll failed: {}", node, ar.cause().toString());
            }
            settleIfIdle();
        });
    }

    private void request(String why, boolean heartbeat, Long changeNanos) {
        if (stopped) {
            return;
        }
        carry(why, heartbeat, changeNanos);
        if (evaluating) {
            rerun = true;
            return;
        }
        evaluate();
    }

    /** Adds a trigger to what the next evaluation covers: the first reason, any heartbeat, the earliest change. */
    private void carry(String why, boolean heartbeat, Long changeNanos) {
        pendingHeartbeat |= heartbeat;
        if (changeNanos != null && (pendingChangeNanos == null || changeNanos < pendingChangeNanos)) {
            pendingChangeNanos = changeNanos;
        }
        pendingWhy = pendingWhy == null ? why : pendingWhy;
    }

    private void evaluate() {
        evaluating = true;
        rerun = false;
        vertx.cancelTimer(rereadTimer); // this evaluation is the re-read
        rereadTimer = -1;
        boolean heartbeat = pendingHeartbeat;
        Long change = pendingChangeNanos;
        String why = pendingWhy;
        pendingHeartbeat = false;
        pendingChangeNanos = null;
        pendingWhy = null;
        long started = System.nanoTime();
        context.<Evaluated>executeBlocking(() -> {
            var files = probe.fileSignature();
            Assessment a = evaluator.evaluate();
            return new Evaluated(a, new ChangeProbe.Baseline(files, a.observation().candidates(),
                    a.observation().listener()));
        }, false).onComplete(ar -> {
            evaluating = false;
            if (ar.succeeded()) {
                baseline = ar.result().baseline();
                evaluated(ar.result().assessment(), why, heartbeat, change);
            } else {
                LOG.error("[{}] evaluation failed: {}", node, ar.cause().toString());
                // Publish the failure as unknown rather than leave the last verdict standing until its exp.
                reread = null;
                handOn(Assessment.failed("evaluation failed: " + ar.cause(), started), why, heartbeat, change);
            }
            if (rerun && !stopped) {
                evaluate();
            } else {
                settleIfIdle();
            }
        });
    }

    /** Hands a completed evaluation on, or reads the node again first when it caught a file mid-write. */
    private void evaluated(Assessment a, String why, boolean heartbeat, Long change) {
        Reread.Next next = Reread.after(reread, a.torn(), System.nanoTime() / 1_000_000);
        if (next instanceof Reread.ReadAgain again) {
            reread = again.retry();
            // Nothing is handed on yet: what this evaluation was asked for carries over to the re-read.
            carry(why, heartbeat, change);
            LOG.info("[{}] {} changed while read; reading the node again in {} ms (re-read {} of {})", node, a.torn(),
                    again.after().toMillis(), again.retry().failures(), Reread.REREADS);
            if (!stopped) {
                rereadTimer = vertx.setTimer(Math.max(1, again.after().toMillis()), id -> {
                    rereadTimer = -1;
                    request("a re-read of " + a.torn().get(0), false, null);
                });
            }
        } else if (next instanceof Reread.HandOn handOn) {
            reread = null;
            if (handOn.gaveUp()) {
                LOG.warn("[{}] {} kept changing through {} re-reads: published as unreadable", node, a.torn(),
                        Reread.REREADS);
            }
            handOn(a, why, heartbeat, change);
        } else {
            throw new IllegalStateException("no handling for " + next);
        }
    }

    private void handOn(Assessment a, String why, boolean heartbeat, Long change) {
        logIfChanged(a.evaluation(), why);
        if (!stopped) {
            listener.evaluated(a, heartbeat, change);
        }
    }

    private void settleIfIdle() {
        if (idle != null && !evaluating && !pollInFlight) {
            Promise<Void> p = idle;
            idle = null;
            p.complete();
        }
    }

    private void logIfChanged(Evaluation e, String why) {
        Evaluation last = lastLogged;
        boolean changed = last == null || last.verdict() != e.verdict() || last.reason() != e.reason()
                || !Objects.equals(last.configDigest(), e.configDigest())
                || !Objects.equals(last.containerd(), e.containerd());
        lastLogged = e;
        if (changed) {
            LOG.info("[{}] verdict {} ({}, proof {}) after {}: {}", node, e.verdict().wire(), e.reason().code(),
                    e.proof().wire(), why, e.message());
        } else {
            LOG.debug("[{}] verdict unchanged after {}", node, why);
        }
    }

    private record Evaluated(Assessment assessment, ChangeProbe.Baseline baseline) {
    }
}
