package dev.crifresh.agent.expire;

import dev.crifresh.agent.kube.LeaseRecord;
import java.time.Instant;

/** What a candidate does with the Lease this round ({@link LeaseDecision}). */
public sealed interface LeaseStep {
    /** No Lease yet: create it, held by us. */
    record Create(LeaseRecord lease) implements LeaseStep {
    }

    /** Write {@code next} over the Lease as read: a renewal of ours, or a takeover of one that ran out. */
    record Update(LeaseRecord next, boolean takeover) implements LeaseStep {
    }

    /** Someone else holds a live Lease until {@code until}: do nothing this round. */
    record Follow(String holder, Instant until) implements LeaseStep {
    }
}
