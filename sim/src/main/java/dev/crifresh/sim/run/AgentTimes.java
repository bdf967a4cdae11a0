package dev.crifresh.sim.run;

import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.expire.ExpirySettings;
import dev.crifresh.common.attest.AttestationPolicy;
import java.time.Duration;

/**
 * The simulated agents' lifetimes: how often each re-attests, how long an attestation lasts, and whether
 * they elect an expiry leader among them (as the chart's DaemonSet does), with a period and Lease short
 * enough for a walkthrough.
 *
 * @param heartbeat   each agent re-publishes at least this often
 * @param validity    {@code exp = iat + validity}; longer than the heartbeat, at most 1h
 * @param expiry      whether the agents compete for the expiry Lease
 */
public record AgentTimes(Duration heartbeat, Duration validity, boolean expiry) {
    /** The agent's defaults, no expiry leader: what the scenarios and the demo run. */
    public static final AgentTimes PRODUCTION = new AgentTimes(AgentSettings.DEFAULT_HEARTBEAT,
            AgentSettings.DEFAULT_VALIDITY, false);
    /** The simulated expiry leader looks every second and its Lease lasts 3 s: the bound is 4 s. */
    public static final Duration EXPIRY_PERIOD = Duration.ofSeconds(1);
    public static final Duration EXPIRY_LEASE = Duration.ofSeconds(3);
    static final String LEASE_NAMESPACE = "crifresh";
    static final String LEASE_NAME = "crifresh-agent-expiry";

    public AgentTimes {
        if (heartbeat.isZero() || heartbeat.isNegative()) {
            throw new IllegalArgumentException("the agents' heartbeat must be longer than 0");
        }
        if (validity.compareTo(heartbeat) <= 0) {
            throw new IllegalArgumentException("the agents' validity must be longer than their heartbeat,"
                    + " or the attestation expires between heartbeats");
        }
        if (validity.compareTo(AttestationPolicy.DEFAULT_MAX_VALIDITY) > 0) {
            throw new IllegalArgumentException("the agents' validity must be at most 1h, the coordinator's limit");
        }
    }

    /** The expiry candidate's settings for the agent on {@code node}, or null when there is no expiry leader. */
    ExpirySettings expiry(String node) {
        return expiry ? new ExpirySettings(LEASE_NAMESPACE, LEASE_NAME, node, EXPIRY_PERIOD, EXPIRY_LEASE) : null;
    }

    /** How long after an attestation's exp its condition reads Unknown at the latest. */
    public Duration expiryBound() {
        return EXPIRY_LEASE.plus(EXPIRY_PERIOD);
    }
}
