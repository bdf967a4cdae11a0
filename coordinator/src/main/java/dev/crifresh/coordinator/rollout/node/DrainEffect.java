package dev.crifresh.coordinator.rollout.node;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;

/** What a node's drain asks to be done ({@link DrainStep}); {@link DrainRunner} carries it out and answers with a {@link DrainInput}. */
sealed interface DrainEffect {
    /** The drain's timers: one of each at most. */
    enum Timer {
        /** {@code --drain-timeout}: the drain fails when it fires. */
        DEADLINE,
        /** The back-off before refused evictions are tried again. */
        RETRY,
        /** The next list of the node's pods. */
        RELIST,
        /** The next "still waiting" line, naming the pods the drain waits for and why. */
        PROGRESS
    }

    /** (Re)set one timer (an earlier one of the same kind is cancelled); answered with {@link DrainInput.TimerFired}. */
    record ArmTimer(Timer timer, Duration delay) implements DrainEffect {
    }

    /** Cancel every timer and close the pod watch. */
    record Close() implements DrainEffect {
    }

    /** List the node's pods ({@link DrainInput.Listed} or {@link DrainInput.ListFailed}). */
    record ListPods() implements DrainEffect {
    }

    /** Start watching the node's pods ({@link DrainInput.WatchStarted}, then {@link DrainInput.WatchSaw} on each change). */
    record Watch() implements DrainEffect {
    }

    /** Look at the pods as the watch sees them now ({@link DrainInput.WatchSaw}). */
    record ReadWatch() implements DrainEffect {
    }

    /**
     * Evict these pods through the Eviction API, each once, if the run may write right before they are sent
     * ({@link DrainInput.Answered}; else {@link DrainInput.NotSent}).
     */
    record Evict(List<Pod> pods) implements DrainEffect {
    }

    /** A progress line about the node. */
    record Say(String text) implements DrainEffect {
    }

    /** Tell the roll every pod to evict is gone. */
    record TellDrained() implements DrainEffect {
    }

    /** Tell the roll the drain did not finish in time ({@code why}). */
    record TellFailed(String why) implements DrainEffect {
    }
}
