package dev.crifresh.agent.expire;

import dev.crifresh.agent.kube.LeaseRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Leader election on a Lease, as client-go's {@code leaderelection} does it: hold it by renewing it; take it
 * when its holder has not renewed it for its {@code leaseDurationSeconds}. Pure: the caller reads the Lease,
 * asks, and writes guarded by the resourceVersion it read, so two candidates cannot both win one round.
 */
public final class LeaseDecision {
    private LeaseDecision() {
    }

    public static LeaseStep decide(Optional<LeaseRecord> current, String me, Instant now, Duration leaseDuration) {
        int seconds = Math.toIntExact(leaseDuration.toSeconds());
        if (current.isEmpty()) {
            return new LeaseStep.Create(new LeaseRecord(me, seconds, now, now, 0, null));
        }
        LeaseRecord lease = current.get();
        if (me.equals(lease.holder())) {
            Instant acquired = lease.acquireTime() == null ? now : lease.acquireTime();
            return new LeaseStep.Update(new LeaseRecord(me, seconds, acquired, now, lease.transitions(),
                    lease.resourceVersion()), false);
        }
        Instant until = expiry(lease, leaseDuration);
        if (lease.holder() == null || lease.holder().isEmpty() || until == null || !now.isBefore(until)) {
            return new LeaseStep.Update(new LeaseRecord(me, seconds, now, now, lease.transitions() + 1,
                    lease.resourceVersion()), true);
        }
        return new LeaseStep.Follow(lease.holder(), until);
    }

    /** When the holder's claim runs out; null when the Lease says nothing about its renewal (taken over at once). */
    static Instant expiry(LeaseRecord lease, Duration ownDuration) {
        if (lease.renewTime() == null) {
            return null;
        }
        Duration duration = lease.durationSeconds() > 0 ? Duration.ofSeconds(lease.durationSeconds()) : ownDuration;
        return lease.renewTime().plus(duration);
    }
}
