package dev.crifresh.coordinator.rollout.observe;

import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.silence.SilenceOutcome;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * What happened in a run, typed: the {@link RunObserver} turns each into progress lines, Kubernetes Events and
 * counts. The run and its node rolls only report these; none of them formats a line or sends an Event itself.
 */
public sealed interface RunEvent {
    /** The run holds the rollout Lease (the Lease keeper says so in its own line). */
    record LockAcquired() implements RunEvent {
    }

    /** The run's hold of the Lease ended: no more side effects (the Lease keeper says why in its own line). */
    record LockLost(String why) implements RunEvent {
    }

    /** The informers could not start yet; the run tries again. */
    record WatchRetry(String why) implements RunEvent {
    }

    /** Every selected node classified at the start. */
    record Classified(Collection<Classification> nodes) implements RunEvent {
    }

    /** The wait for config-pending nodes began. */
    record ConfigWaitStarted(Duration timeout, String registry, List<String> names) implements RunEvent {
    }

    /** A config-pending node's config now holds the desired credential. */
    record ConfigSettled(Classification node) implements RunEvent {
    }

    /** With action auto: what the node's Talos version decided. */
    record NodeDecided(String node, NodeAction action) implements RunEvent {
    }

    /** A reboot that takes the API server away is waited out ({@code --api-outage-budget}). */
    record ApiOutageAllowed(String node, String why) implements RunEvent {
    }

    /** An earlier run's leftover node is being released. */
    record LeftoverReleased(String node, boolean uncordon) implements RunEvent {
    }

    /** Where evicted pods land; a seed also gets an Event. */
    record Placed(EvictionPlacement placement) implements RunEvent {
    }

    /** A node to reboot that the run leaves alone (its drain would lose pods, the coordinator runs on it): why. */
    record NotRolled(String node, String why) implements RunEvent {
    }

    /** The roll begins. */
    record RollStarted(List<String> order, int budget, int selected) implements RunEvent {
    }

    /** Nothing could start now: why the first queued node waits. */
    record Blocked(String why) implements RunEvent {
    }

    /** Action none or auto: the wait for nodes to attest fresh by themselves began. */
    record FreshWaitStarted(String action, Duration timeout, List<String> names) implements RunEvent {
    }

    /** A waited-for node turned fresh without a reboot. */
    record TurnedFresh(Classification node) implements RunEvent {
    }

    /** A node joined while the run was under way: waited for until it attests. */
    record Joined(String node, Duration timeout) implements RunEvent {
    }

    /** A joined node was deleted again. */
    record JoinedDeleted(String node) implements RunEvent {
    }

    /** What the run does with a joined node, once it settled. */
    record JoinedDecided(String node, Classification classification, JoinedRoute route) implements RunEvent {
    }

    /** Where a joined node goes. */
    enum JoinedRoute { SKIPPED, AFTER_THE_WAIT, ROLLED }

    /** The final read of the nodes found every one fresh or reported. */
    record InventoryDone(int selected) implements RunEvent {
    }

    /** A node's roll reports progress ({@code host.progress}). */
    record NodeProgress(String prefix, ProgressListener.Level level, String text) implements RunEvent {
    }

    /**
     * The node counts as rebooting: its reboot was requested, or ({@code resumed}) an earlier run's reboot is taken
     * over. No line of its own (the roll says it).
     */
    record RebootOrdered(String node, boolean resumed) implements RunEvent {
    }

    /** A Kubernetes Event on a node ({@code host.event}, the taints, the seed). */
    record NodeEvent(String node, EventReason reason, String message) implements RunEvent {
    }

    /** An Alertmanager silence was created, expired, or could not be. */
    record Silence(SilenceOutcome outcome) implements RunEvent {
    }

    /** A warning of the run's own (a taint that could not be changed, say). */
    record Warning(String text) implements RunEvent {
    }

    /** The run stops taking on new work. */
    record Stopping(StopReason reason, String why, boolean rolling) implements RunEvent {
    }
}
