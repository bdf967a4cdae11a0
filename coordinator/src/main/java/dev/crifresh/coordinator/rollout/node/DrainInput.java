package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.DrainRules;
import dev.crifresh.coordinator.kube.PodOps.Eviction;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;

/** What a node's drain learns ({@link DrainStep}): the roll's start and stop, and the answers to its effects. */
sealed interface DrainInput {
    /**
     * The roll starts a drain (again), with a fresh deadline {@code timeout}; {@code rules} say which pods it must
     * not evict without an opt-in ({@code --force}, {@code --delete-emptydir-data}) and which pod is its own.
     */
    record Start(Duration timeout, DrainRules rules) implements DrainInput {
        public Start {
            java.util.Objects.requireNonNull(rules, "rules");
        }
    }

    /** The roll stops the drain. */
    record Stop() implements DrainInput {
    }

    /** The node's pods, listed. */
    record Listed(List<Pod> pods) implements DrainInput {
    }

    /** Listing the node's pods failed. */
    record ListFailed(String error) implements DrainInput {
    }

    /** The pod watch started; {@code pods}: its first list. */
    record WatchStarted(List<Pod> pods) implements DrainInput {
    }

    /** The pod watch could not be started. */
    record WatchFailed(String error) implements DrainInput {
    }

    /** The node's pods as the watch sees them now (after a change, or when asked). */
    record WatchSaw(List<Pod> pods) implements DrainInput {
    }

    /** Every eviction of one round answered, in the order sent. */
    record Answered(List<EvictionAnswer> answers) implements DrainInput {
    }

    /** A round of evictions was not sent: the run may not write (the lost Lease ends the run). */
    record NotSent(List<Pod> pods) implements DrainInput {
    }

    /** One of the drain's timers fired. */
    record TimerFired(DrainEffect.Timer timer) implements DrainInput {
    }

    /** One eviction's answer: {@code result}, or {@code error} when the call failed. */
    record EvictionAnswer(Pod pod, Eviction result, String error) {
    }
}
