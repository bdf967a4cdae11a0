package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * An alert the simulated Prometheus reports as firing from the start of the run.
 *
 * @param name        the {@code alertname} label
 * @param clearsAfter when it stops firing, relative to the start of the run; null = it fires throughout
 */
public record AlertSpec(String name, Duration clearsAfter) {
}
