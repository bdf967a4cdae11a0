package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * The rollout gates' flags of a scenario's coordinator block.
 *
 * @param pullProof          {@code off} | {@code rebooted} | {@code all}
 * @param pullProofImage     the probe image; null = {@code <registry>/crifresh/pull-probe:1}
 * @param etcdCheck          {@code talosctl} (the simulated talosctl) | {@code none}
 * @param blockOnAlert       alert-name regex, or null
 * @param blockOnPodSelector pod label selector, or null
 */
public record GateSpec(
        String pullProof,
        String pullProofImage,
        Duration pullProofTimeout,
        String etcdCheck,
        String blockOnAlert,
        String blockOnPodSelector,
        Duration blockTimeout) {

    public static GateSpec defaults() {
        return new GateSpec("off", null, Duration.ofSeconds(10), "talosctl", null, null, Duration.ofSeconds(10));
    }
}
