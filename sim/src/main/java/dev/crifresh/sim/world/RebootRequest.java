package dev.crifresh.sim.world;

import java.time.Instant;

/**
 * A reboot the coordinator asked for.
 *
 * @param configHeldDesired whether the node's CRI config held the desired credential at that moment
 * @param bootsBefore       how many times the node had booted before this reboot
 */
public record RebootRequest(String node, Instant at, boolean configHeldDesired, int bootsBefore) {
}
