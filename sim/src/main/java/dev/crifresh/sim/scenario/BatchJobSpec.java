package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * A running batch-job pod on the node (labels {@code app=batch}, owned by a Job) — what
 * {@code --block-on-pod-selector} protects.
 *
 * @param finishesAfter when the pod completes and is gone, relative to the start of the run; null = it
 *                      runs throughout
 */
public record BatchJobSpec(Duration finishesAfter) {
}
