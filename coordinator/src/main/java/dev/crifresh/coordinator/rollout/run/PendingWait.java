package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.time.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Waiting, bounded by a timeout, until every node of a set has settled (its classification passes a
 * test): the wait for config-pending nodes, and action none's wait for nodes to turn fresh. Every call
 * and callback happens on the run's context.
 */
final class PendingWait {
    private final Ticker ticker;
    private final Predicate<Classification> settles;
    private final Consumer<Classification> onSettled;
    private final Runnable onAllSettled;
    private final Runnable onTimeout;
    private final Set<String> names = new LinkedHashSet<>();
    private boolean active;
    private long timer = -1;

    /**
     * @param settles      whether a node with this classification is no longer waited for
     * @param onSettled    a node settled (already removed from the wait)
     * @param onAllSettled the last node settled or was removed; the timer is cancelled
     * @param onTimeout    the timeout passed with nodes left ({@link #names()})
     */
    PendingWait(Ticker ticker, Predicate<Classification> settles, Consumer<Classification> onSettled,
                Runnable onAllSettled, Runnable onTimeout) {
        this.ticker = ticker;
        this.settles = settles;
        this.onSettled = onSettled;
        this.onAllSettled = onAllSettled;
        this.onTimeout = onTimeout;
    }

    void add(String name) {
        names.add(name);
    }

    boolean contains(String name) {
        return names.contains(name);
    }

    boolean isEmpty() {
        return names.isEmpty();
    }

    /** The nodes still waited for, in the order they were added. */
    Set<String> names() {
        return Collections.unmodifiableSet(names);
    }

    List<String> snapshot() {
        return List.copyOf(names);
    }

    /** Starts the wait: from now on settled nodes count, and {@code timeout} bounds it. */
    void start(Duration timeout) {
        active = true;
        timer = ticker.setTimer(timeout, () -> {
            timer = -1;
            if (active) {
                onTimeout.run();
            }
        });
    }

    /** Checks several nodes' classifications, unless the wait is over. */
    void checkAll(Collection<Classification> latest) {
        if (active) {
            latest.forEach(this::check);
        }
    }

    /** Checks one node's classification: a waited-for node that settles leaves the wait. */
    void check(Classification c) {
        String name = c.name();
        if (names.contains(name) && settles.test(c)) {
            names.remove(name);
            onSettled.accept(c);
            if (names.isEmpty()) {
                end();
                onAllSettled.run();
            }
        }
    }

    /** Drops a node (it was deleted); true when it was waited for. Follow with {@link #endIfEmpty()}. */
    boolean remove(String name) {
        return names.remove(name);
    }

    /** Ends a started wait whose nodes are all gone. */
    void endIfEmpty() {
        if (names.isEmpty() && active) {
            end();
            onAllSettled.run();
        }
    }

    /** Ends the wait without telling anyone (the run finishes). */
    void cancel() {
        end();
    }

    private void end() {
        active = false;
        if (timer >= 0) {
            ticker.cancelTimer(timer);
            timer = -1;
        }
    }
}
