package dev.crifresh.coordinator.rollout.lease;

/**
 * Where the run's hold on the rollout Lease is ({@link LeaseStep}). What the fence reads: {@link #holds(long)}, safe
 * on any thread (every state is an immutable record).
 */
sealed interface LeaseState {
    /** Whether this run may act at {@code nowNanos}: it holds the Lease and its hold is certainly valid then. */
    boolean holds(long nowNanos);

    /** Whether the Lease is this run's on the server, so the run gives it back at its end (never after a loss). */
    boolean releases();

    /**
     * What a taken Lease gives.
     *
     * @param identity       this run's holder identity, as the acquire wrote it
     * @param validUntil     (nanoTime) until when the hold is certainly valid: the send time of the last successful
     *                       acquire or renewal + duration − margin
     * @param lapses         how often the hold lapsed during an allowed outage: a decision read before a lapse is stale
     * @param lastRenewError why the last renewal failed, or null
     * @param renewArmed     the renewal timer is set
     */
    record Hold(String identity, long validUntil, int lapses, String lastRenewError, boolean renewArmed) {
        boolean valid(long nowNanos) {
            return nowNanos - validUntil < 0;
        }

        Hold extended(long until) {
            return new Hold(identity, until - validUntil > 0 ? until : validUntil, lapses, null, renewArmed);
        }

        Hold failed(String error) {
            return new Hold(identity, validUntil, lapses, error, renewArmed);
        }

        Hold renewArmed(boolean armed) {
            return new Hold(identity, validUntil, lapses, lastRenewError, armed);
        }

        Hold lapsed() {
            return new Hold(identity, validUntil, lapses + 1, lastRenewError, renewArmed);
        }
    }

    /**
     * Taking the Lease, until {@code deadline} (nanoTime; {@code --lock-timeout}); {@code said}: the wait was announced;
     * {@code locked}: an answer too late to act on made it ours on the server.
     */
    record Acquiring(long deadline, boolean said, boolean locked) implements LeaseState {
        public boolean holds(long nowNanos) { return false; }
        public boolean releases() { return locked; }
    }

    /** Held and renewed every third of its duration. */
    record Held(Hold hold) implements LeaseState {
        public boolean holds(long nowNanos) { return hold.valid(nowNanos); }
        public boolean releases() { return true; }
    }

    /**
     * The hold lapsed and {@code --api-outage-budget} allows an outage: nothing is sent, renewals go on; {@code since}
     * (nanoTime) when it lapsed.
     */
    record Suspended(Hold hold, long since) implements LeaseState {
        public boolean holds(long nowNanos) { return hold.valid(nowNanos); }
        public boolean releases() { return true; }
    }

    /** The hold ended for good (taken over, deleted, not renewed in time): nothing more is sent, nothing given back. */
    record Lost(Hold hold, String why) implements LeaseState {
        public boolean holds(long nowNanos) { return false; }
        public boolean releases() { return false; }
    }

    /**
     * The run let go: no more renewals. A hold it had ({@code hold}, or null) still fences the run's cleanup until it
     * ends; {@code locked}: the Lease is given back at the end.
     */
    record Released(Hold hold, boolean locked) implements LeaseState {
        public boolean holds(long nowNanos) { return hold != null && hold.valid(nowNanos); }
        public boolean releases() { return locked; }
    }
}
