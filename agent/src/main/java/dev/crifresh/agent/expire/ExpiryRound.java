package dev.crifresh.agent.expire;

import java.util.List;

/**
 * What one round did.
 *
 * @param leader     whether this agent held the Lease this round (and so looked at the Nodes)
 * @param holder     who holds the Lease, as far as this round knows
 * @param nodes      how many Nodes the leader looked at (0 for a follower)
 * @param downgraded the Nodes whose condition this round marked Unknown
 */
public record ExpiryRound(boolean leader, String holder, int nodes, List<String> downgraded) {
    public ExpiryRound {
        downgraded = List.copyOf(downgraded);
    }

    static ExpiryRound follower(String holder) {
        return new ExpiryRound(false, holder, 0, List.of());
    }
}
