package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.coordinator.base.NodeTimeouts;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.rollout.plan.Ownership;
import dev.crifresh.coordinator.rollout.plan.Phase;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * Where one node's roll is ({@link NodeStep}): each state holds the roll's running facts ({@link RollFacts}) and only
 * its own data. {@link #busy()}: a call of the step is in flight, whose answer decides what comes next (a node
 * update or deletion meanwhile is left to it).
 */
sealed interface NodeState {
    RollFacts roll();

    /** The state with other running facts. */
    NodeState with(RollFacts roll);

    /** The step in one word, for "abandoned while ..." (the run's report). */
    String word();

    default boolean busy() {
        return false;
    }

    /**
     * What a roll carries from step to step.
     *
     * @param resumeFrom   an earlier run's ownership left in a phase its reboot may have happened in, or null
     * @param timeouts     the node's waits: the reboot's return and the attestation, and the stall of a drained node
     *                     the last-moment check does not let reboot yet
     * @param startedAs    the node when its roll started: the last-moment check requires the same machine
     * @param latest       the node as the run last saw it (informer, patch answers); null once deleted
     * @param cordonedByUs this run cordoned it, or an earlier run did ({@code crifresh.dev/cordoned=true})
     * @param reboots      reboot requests so far (a resumed node counts the earlier run's)
     * @param bootBefore   the boot id recorded before the last reboot request
     * @param seenBefore   attestation messages seen up to this run's driver call: none proves the new boot fresh
     * @param allowance    what judging a resumed record never carried out allows for ({@link UnsentReboot})
     */
    record RollFacts(String name, String runId, Ownership resumeFrom, NodeTimeouts timeouts,
                NodeFacts startedAs, NodeFacts latest, boolean cordonedByUs, int reboots, String bootBefore,
                Set<String> seenBefore, UnsentReboot.Allowance allowance) {
        public RollFacts {
            seenBefore = Set.copyOf(seenBefore);
        }

        static RollFacts of(String name, String runId, Ownership resumeFrom, NodeTimeouts timeouts) {
            return of(name, runId, resumeFrom, timeouts, UnsentReboot.Allowance.DEFAULT);
        }

        static RollFacts of(String name, String runId, Ownership resumeFrom, NodeTimeouts timeouts, UnsentReboot.Allowance allowance) {
            return new RollFacts(name, runId, resumeFrom, timeouts, null, null, false, 0, null, Set.of(), allowance);
        }

        /** How long the node may take to return Ready with a new boot id ({@code --reboot-timeout}). */
        Duration rebootTimeout() {
            return timeouts.reboot();
        }

        /** How long the returned node may take to attest fresh ({@code --attest-timeout}). */
        Duration attestTimeout() {
            return timeouts.attest();
        }

        /** How long a drained node may wait for the last-moment check to let it reboot ({@code --stall-timeout}). */
        Duration stallTimeout() {
            return timeouts.stall();
        }

        RollFacts started(NodeFacts facts) {
            boolean cordoned = "true".equals(facts.annotation(CrifreshAnnotations.CORDONED));
            return new RollFacts(name, runId, resumeFrom, timeouts, facts, facts, cordoned, reboots, bootBefore, seenBefore, allowance);
        }

        RollFacts seen(NodeFacts facts) {
            return new RollFacts(name, runId, resumeFrom, timeouts, startedAs, facts, cordonedByUs, reboots, bootBefore, seenBefore, allowance);
        }

        RollFacts cordoned(boolean byUs) {
            return new RollFacts(name, runId, resumeFrom, timeouts, startedAs, latest, byUs, reboots, bootBefore, seenBefore, allowance);
        }

        RollFacts rebooted() {
            return new RollFacts(name, runId, resumeFrom, timeouts, startedAs, latest, cordonedByUs, reboots + 1, bootBefore, seenBefore, allowance);
        }

        RollFacts bootBefore(String bootId) {
            return new RollFacts(name, runId, resumeFrom, timeouts, startedAs, latest, cordonedByUs, reboots, bootId, seenBefore, allowance);
        }

        /** Remembers the attestations the node showed (the run's copy, the copy the driver is given) before the driver call. */
        RollFacts seenAttestations(NodeFacts... copies) {
            Set<String> seen = new HashSet<>(seenBefore);
            for (NodeFacts f : copies) {
                if (f != null && f.attestation() != null) {
                    seen.add(f.attestation().message());
                }
            }
            return new RollFacts(name, runId, resumeFrom, timeouts, startedAs, latest, cordonedByUs, reboots, bootBefore, seen, allowance);
        }

        boolean resumed() {
            return resumeFrom != null;
        }

        /** Whether crifresh cordoned the node: this run did, or the node carries {@code crifresh.dev/cordoned=true}. */
        boolean crifreshCordoned() {
            return cordonedByUs || (latest != null && "true".equals(latest.annotation(CrifreshAnnotations.CORDONED)));
        }
    }

    /** Waiting for its turn (the run starts it). */
    record Queued(RollFacts roll) implements NodeState {
        public NodeState with(RollFacts r) { return new Queued(r); }
        public String word() { return "queued"; }
    }

    /** 1. Its gates before it is taken down (blockers, etcd). */
    record Gated(RollFacts roll) implements NodeState {
        public NodeState with(RollFacts r) { return new Gated(r); }
        public String word() { return "gated"; }
    }

    /** 2. The claim+cordon patch is in flight. */
    record Owning(RollFacts roll) implements NodeState {
        public NodeState with(RollFacts r) { return new Owning(r); }
        public String word() { return "owning"; }
        public boolean busy() { return true; }
    }

    /** 3. Its pods are evicted ({@link DrainStep}, run by {@link DrainRunner}). */
    record Draining(RollFacts roll) implements NodeState {
        public NodeState with(RollFacts r) { return new Draining(r); }
        public String word() { return "draining"; }
    }

    /**
     * 4. The last-moment check: a fresh read in flight ({@code reading}), or waiting to check again.
     *
     * @param waitingSince when the check first said "not now" (nanos), or null
     * @param recorded     phase rebooting is recorded and the driver not called yet (an outage came in between)
     */
    record Checking(RollFacts roll, Long waitingSince, boolean recorded, boolean reading) implements NodeState {
        public NodeState with(RollFacts r) { return new Checking(r, waitingSince, recorded, reading); }
        public String word() { return "rebooting"; }
        public boolean busy() { return reading; }
    }

    /** 5. Phase rebooting is being recorded (the crash boundary); {@code lapse}: the fence's lapses at the check. */
    record Recording(RollFacts roll, int lapse, boolean recorded) implements NodeState {
        public NodeState with(RollFacts r) { return new Recording(r, lapse, recorded); }
        public String word() { return "rebooting"; }
        public boolean busy() { return true; }
    }

    /** 6. The Lease is confirmed ({@code calling} false), then the reboot driver is called with {@code node}. */
    record Requesting(RollFacts roll, Node node, int lapse, boolean calling) implements NodeState {
        public NodeState with(RollFacts r) { return new Requesting(r, node, lapse, calling); }
        public String word() { return "rebooting"; }
        public boolean busy() { return true; }
    }

    /**
     * 7. Waiting for a new boot id and Ready; {@code unproven}: for a resumed record, why it could not be judged never
     * carried out so far ({@link UnsentReboot}), or null.
     */
    record Returning(RollFacts roll, String unproven) implements NodeState {
        Returning(RollFacts roll) {
            this(roll, null);
        }

        public NodeState with(RollFacts r) { return new Returning(r, unproven); }
        public String word() { return "returning"; }
    }

    /** 7. Back: phase verifying is being recorded. */
    record Marking(RollFacts roll) implements NodeState {
        public NodeState with(RollFacts r) { return new Marking(r); }
        public String word() { return "attesting"; }
        public boolean busy() { return true; }
    }

    /** 8. Waiting for a fresh attestation from the new boot; {@code lastWait}: why the last look was not it. */
    record Attesting(RollFacts roll, String lastWait) implements NodeState {
        public NodeState with(RollFacts r) { return new Attesting(r, lastWait); }
        public String word() { return "attesting"; }
    }

    /** 9. Its gates after its return (etcd back, pull proof); {@code rebooted}: the report's detail so far. */
    record Proving(RollFacts roll, String rebooted) implements NodeState {
        public NodeState with(RollFacts r) { return new Proving(r, rebooted); }
        public String word() { return "proving"; }
        public boolean busy() { return true; }
    }

    /** 10. The release patch is in flight; {@code then}: how the roll ends once it lands. */
    record Releasing(RollFacts roll, NodeEnd then) implements NodeState {
        public NodeState with(RollFacts r) { return new Releasing(r, then); }
        public String word() { return "releasing"; }
        public boolean busy() { return true; }
    }

    /** A resumed node still stale: its phase goes back to draining ({@code why}: the failure so far). */
    record Resetting(RollFacts roll, String why) implements NodeState {
        public NodeState with(RollFacts r) { return new Resetting(r, why); }
        public String word() { return "releasing"; }
        public boolean busy() { return true; }
    }

    /** The roll ended. */
    record Done(RollFacts roll, NodeEnd end) implements NodeState {
        public NodeState with(RollFacts r) { return new Done(r, end); }
        public String word() { return "done"; }
    }
}
