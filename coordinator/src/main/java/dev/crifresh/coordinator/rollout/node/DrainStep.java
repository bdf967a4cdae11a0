package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.common.retry.RetryPolicy;
import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.kube.PodOps.Eviction;
import dev.crifresh.coordinator.rollout.node.DrainEffect.*;
import dev.crifresh.coordinator.rollout.node.DrainInput.*;
import dev.crifresh.coordinator.rollout.node.DrainState.*;
import dev.crifresh.coordinator.rollout.plan.DrainSelection;
import dev.crifresh.coordinator.rollout.plan.DrainSelection.Refusal;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A node's drain as a pure step: {@code next(state, input) → (state, effects)}; {@link DrainRunner} carries the
 * effects out and feeds the answers back. The algorithm:
 * <ol>
 *   <li><b>Start</b>: set the deadline ({@code --drain-timeout}), list the node's pods at once (so the evictions do
 *       not wait for the watch) and start a watch on them ({@code Listing});</li>
 *   <li><b>Watch</b>: once it runs ({@code Watching}), every change of a pod is judged again, so the drain ends the
 *       moment the last evicted pod is gone; a slow re-list ({@link #relistMillis}) is only a safety net for a watch
 *       that silently stops delivering. A watch that cannot start leaves re-listing as the mechanism, at the faster
 *       {@link #pollMillis};</li>
 *   <li><b>Judge</b> the pods seen: every pod but DaemonSet, mirror and already-terminating ones
 *       ({@link DrainSelection}) is waited for; none left is <b>drained</b>. The ones not evicted, not in flight and
 *       not refused are evicted, each once per round, through the Eviction API;</li>
 *   <li><b>Back off</b>: a refused (PDB) or failed eviction, and a failed list without a watch, wait one delay of
 *       {@link #retryPolicy} — one sequence for both — before the refused pods are tried again;</li>
 *   <li><b>Say</b> what it waits for while it waits — each pod named, with why: evicted and still terminating, eviction
 *       requested, refused by a PodDisruptionBudget (429), or failed — every {@link #progressMillis} (30 s at most);</li>
 *   <li><b>Fail</b> when the deadline fires first, naming what it waited for.</li>
 * </ol>
 * Which pods are evicted is {@link DrainSelection}'s; this decides only when.
 */
final class DrainStep {
    /** The state after an input and what to do for it, in order. */
    record Step(DrainState state, List<DrainEffect> effects) {
    }

    /** Upper bound of the safety-net re-list period while the watch runs. */
    static final Duration RELIST = Duration.ofSeconds(5);
    /** Upper bound of the period of the "still waiting" line while a drain waits. */
    static final Duration PROGRESS = Duration.ofSeconds(30);

    private DrainStep() {
    }

    static DrainState idle() {
        return new Idle(0);
    }

    static Step next(DrainState s, DrainInput in) {
        if (in instanceof Start start) {
            Book book = Book.fresh(start.timeout(), start.rules());
            return new Step(new Listing(s.epoch() + 1, book), List.of(new Close(), new ArmTimer(Timer.DEADLINE, start.timeout()),
                    new ArmTimer(Timer.PROGRESS, Duration.ofMillis(progressMillis(start.timeout()))), new ListPods(), new Watch()));
        }
        if (in instanceof Stop) {
            return book(s) == null ? stay(s) : new Step(new Idle(s.epoch() + 1), List.of(new Close()));
        }
        Book book = book(s);
        if (book == null) {
            return stay(s); // an answer after the drain ended (the runner drops those first)
        }
        boolean watching = s instanceof Watching;
        if (in instanceof Listed l) {
            return relisting(watching ? relistMillis(book.timeout()) : pollMillis(book.timeout()), judge(s, book, l.pods()));
        }
        if (in instanceof ListFailed f) {
            Book next = watching ? book : book.retried(false);
            long delay = watching ? relistMillis(book.timeout()) : backoff(next);
            return new Step(with(s, next.said(next.lastLeft(), "cannot list pods: " + f.error())),
                    List.of(new ArmTimer(Timer.RELIST, Duration.ofMillis(delay))));
        }
        if (in instanceof WatchStarted w) {
            return relisting(relistMillis(book.timeout()), judge(new Watching(s.epoch(), book), book, w.pods()));
        }
        if (in instanceof WatchFailed f) {
            return new Step(s, List.of(new Say("cannot watch its pods (" + f.error() + "); listing them every "
                    + pollMillis(book.timeout()) + " ms instead")));
        }
        if (in instanceof WatchSaw w) {
            return judge(s, book, w.pods());
        }
        if (in instanceof Answered a) {
            return answered(s, book, a.answers());
        }
        if (in instanceof NotSent n) {
            Set<String> evicting = new HashSet<>(book.evicting());
            n.pods().forEach(p -> evicting.remove(uid(p)));
            return stay(with(s, book.evictions(book.evicted(), evicting, book.refused())));
        }
        if (in instanceof TimerFired t) {
            return timerFired(s, book, t.timer());
        }
        throw new IllegalStateException("unhandled drain input " + in);
    }

    /** What a running drain knows, or null when it is not running; a state this does not know fails loudly. */
    private static Book book(DrainState s) {
        if (s instanceof Listing l) {
            return l.book();
        }
        if (s instanceof Watching w) {
            return w.book();
        }
        if (s instanceof Idle || s instanceof Drained || s instanceof TimedOut) {
            return null;
        }
        throw new IllegalStateException("unhandled drain state " + s);
    }

    private static DrainState with(DrainState s, Book book) {
        return s instanceof Watching ? new Watching(s.epoch(), book) : new Listing(s.epoch(), book);
    }

    /** Judges the node's pods: drained, or evict what is not evicted yet, and wait. */
    private static Step judge(DrainState s, Book book, List<Pod> pods) {
        List<Pod> waitFor = new ArrayList<>();
        List<Pod> toEvict = new ArrayList<>();
        for (Pod pod : pods) {
            String uid = uid(pod);
            if (DrainSelection.neverEvicted(pod, book.rules())) {
                continue;
            }
            if (book.evicted().contains(uid) || book.evicting().contains(uid)) {
                waitFor.add(pod);
            } else if (!DrainSelection.terminating(pod)) {
                waitFor.add(pod);
                // A pod that appeared after the run's pre-check is never evicted without its opt-in: the drain waits
                // for it and its deadline names it, as kubectl drain refuses it.
                if (!book.refused().containsKey(uid) && DrainSelection.refusals(pod, book.rules()).isEmpty()) {
                    toEvict.add(pod);
                }
            }
        }
        if (waitFor.isEmpty()) {
            return new Step(new Drained(s.epoch() + 1), List.of(new Close(), new Say("drained"), new TellDrained()));
        }
        List<DrainEffect> effects = new ArrayList<>();
        int left = waitFor.size();
        if (left != book.lastLeft()) {
            effects.add(new Say("draining: " + left + (left == 1 ? " pod left" : " pods left")));
        }
        Book next = book.said(left, waitDetail(book, waitFor));
        if (!toEvict.isEmpty()) {
            Set<String> evicting = new HashSet<>(next.evicting());
            toEvict.forEach(p -> evicting.add(uid(p)));
            next = next.evictions(next.evicted(), evicting, next.refused());
            effects.add(new Evict(List.copyOf(toEvict)));
        }
        return new Step(with(s, next), effects);
    }

    /** A round of evictions answered: refused ones wait for the back-off, then the pods are judged again. */
    private static Step answered(DrainState s, Book book, List<EvictionAnswer> answers) {
        Set<String> evicted = new HashSet<>(book.evicted());
        Set<String> evicting = new HashSet<>(book.evicting());
        Map<String, String> refused = new LinkedHashMap<>(book.refused());
        for (EvictionAnswer a : answers) {
            String uid = uid(a.pod());
            evicting.remove(uid);
            if (a.error() != null) {
                refused.put(uid, DrainSelection.id(a.pod()) + " (eviction failed: " + a.error() + ")");
            } else if (a.result() == Eviction.BLOCKED) {
                refused.put(uid, DrainSelection.id(a.pod()) + " (eviction refused by a PodDisruptionBudget)");
            } else {
                evicted.add(uid);
            }
        }
        Book next = book.evictions(evicted, evicting, refused);
        List<DrainEffect> effects = new ArrayList<>();
        if (!refused.isEmpty() && !next.retryArmed()) {
            next = next.retried(true);
            effects.add(new ArmTimer(Timer.RETRY, Duration.ofMillis(backoff(next))));
        }
        DrainState after = with(s, next);
        effects.add(refresh(after));
        return new Step(after, effects);
    }

    private static Step timerFired(DrainState s, Book book, Timer timer) {
        if (timer == Timer.DEADLINE) {
            String why = "drain did not finish within " + DurationText.format(book.timeout()) + ": " + book.waitDetail();
            return new Step(new TimedOut(s.epoch() + 1, why), List.of(new Close(), new TellFailed(why)));
        }
        if (timer == Timer.RETRY) {
            DrainState after = with(s, book.retryFired());
            return new Step(after, List.of(refresh(after)));
        }
        if (timer == Timer.RELIST) {
            return new Step(s, List.of(new ListPods()));
        }
        if (timer == Timer.PROGRESS) {
            return new Step(s, List.of(new Say(stillWaiting(book)), new ArmTimer(Timer.PROGRESS,
                    Duration.ofMillis(progressMillis(book.timeout())))));
        }
        throw new IllegalStateException("unhandled drain timer " + timer);
    }

    /** Judge again: from the watch's view, or from a new list when there is no watch. */
    private static DrainEffect refresh(DrainState s) {
        return s instanceof Watching ? new ReadWatch() : new ListPods();
    }

    private static String waitDetail(Book book, List<Pod> waitFor) {
        List<String> left = new ArrayList<>(book.refused().values());
        for (Pod pod : waitFor) {
            String uid = uid(pod);
            if (book.evicted().contains(uid)) {
                left.add(DrainSelection.id(pod) + " (evicted, still terminating)");
            } else if (book.evicting().contains(uid)) {
                left.add(DrainSelection.id(pod) + " (eviction requested)");
            } else if (!book.refused().containsKey(uid)) {
                List<Refusal> why = DrainSelection.refusals(pod, book.rules());
                if (!why.isEmpty()) {
                    left.add(new DrainSelection.Refused(DrainSelection.id(pod), why) + ": not evicted");
                }
            }
        }
        return String.join(", ", left);
    }

    /**
     * Retrying PDB-blocked evictions and failed pod lists, scaled to the drain timeout: doubling from 1/20 of it
     * (10 ms – 500 ms) to 1/4 (up to 10 s), no jitter; the drain's own deadline timer ends the retries.
     */
    static RetryPolicy retryPolicy(Duration timeout) {
        long t = timeout.toMillis();
        long first = Math.min(500, Math.max(10, t / 20));
        long cap = Math.min(10_000, Math.max(first, t / 4));
        return RetryPolicy.doubling(Duration.ofMillis(first), Duration.ofMillis(cap));
    }

    /** The delay of the book's latest back-off. */
    private static long backoff(Book book) {
        return book.retry().delay().toMillis();
    }

    /** The "still waiting" line: how many pods the drain waits for, each named with why. */
    static String stillWaiting(DrainState.Book book) {
        if (book.lastLeft() < 0) {
            return "draining: still waiting: " + book.waitDetail();
        }
        return "draining: still waiting for " + book.lastLeft() + (book.lastLeft() == 1 ? " pod: " : " pods: ") + book.waitDetail();
    }

    /** How often a drain that waits says what it waits for: every 30 s at most, a quarter of a shorter drain timeout. */
    static long progressMillis(Duration timeout) {
        return Math.min(PROGRESS.toMillis(), Math.max(pollMillis(timeout), timeout.toMillis() / 4));
    }

    /** The safety-net re-list period while the watch runs: a quarter of the drain timeout, at most {@link #RELIST}. */
    static long relistMillis(Duration timeout) {
        return Math.min(RELIST.toMillis(), Math.max(pollMillis(timeout), timeout.toMillis() / 4));
    }

    /** The re-list period without a watch. */
    static long pollMillis(Duration timeout) {
        return Math.min(1000, Math.max(20, timeout.toMillis() / 20));
    }

    static String uid(Pod pod) {
        String uid = pod.getMetadata().getUid();
        return uid != null ? uid : DrainSelection.id(pod);
    }

    private static Step stay(DrainState s) {
        return new Step(s, List.of());
    }

    /** The next list after {@code delayMillis}, first, unless the pods just judged ended the drain. */
    private static Step relisting(long delayMillis, Step judged) {
        if (book(judged.state()) == null) {
            return judged;
        }
        List<DrainEffect> all = new ArrayList<>();
        all.add(new ArmTimer(Timer.RELIST, Duration.ofMillis(delayMillis)));
        all.addAll(judged.effects());
        return new Step(judged.state(), all);
    }
}
