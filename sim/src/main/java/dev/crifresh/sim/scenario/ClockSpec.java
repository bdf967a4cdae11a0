package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * A node's wall clock at boot (docs/scenarios.md, {@code clock}): off by {@code offsetAtBoot} until time
 * sync steps it to the true time {@code steppedAfterBoot} into the boot. Every stamp written before the step
 * (config parts, containerd's socket) carries the offset, every stamp after it is true; the kernel's boot
 * time moves with the step, and the agent starts only after it.
 *
 * @param offsetAtBoot     wall clock minus true time until the step (negative: behind)
 * @param steppedAfterBoot when time sync steps the clock, after boot
 * @param everyBoot        false: only the first boot has the offset, later (rebooted) boots come up true
 */
public record ClockSpec(Duration offsetAtBoot, Duration steppedAfterBoot, boolean everyBoot) {
    /** Always correct. */
    public static final ClockSpec CORRECT = new ClockSpec(Duration.ZERO, Duration.ZERO, true);

    /** The wall clock's reading of an event {@code afterBoot} into a boot that has this clock. */
    public Duration stamp(Duration afterBoot) {
        return afterBoot.compareTo(steppedAfterBoot) < 0 ? afterBoot.plus(offsetAtBoot) : afterBoot;
    }

    /** This clock on boot number {@code boot} (1 = the scenario's boot). */
    public ClockSpec onBoot(int boot) {
        return boot <= 1 || everyBoot ? this : CORRECT;
    }

    public boolean correct() {
        return offsetAtBoot.isZero() || steppedAfterBoot.isZero();
    }
}
