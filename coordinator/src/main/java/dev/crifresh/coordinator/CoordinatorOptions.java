package dev.crifresh.coordinator;

import dev.crifresh.coordinator.gate.GateWiring;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.silence.Silences;
import java.util.function.Consumer;

/**
 * What an embedder adds to a {@link Coordinator}, given at construction (nothing is set after it).
 *
 * @param gates     the rollout gates (pull proof, etcd, blockers) for {@link Coordinator#plan()} and
 *                  {@link Coordinator#rollout()}; null = none
 * @param silences  the Alertmanager silences for {@link Coordinator#rollout()}'s nodes while they are down; the rollout
 *                  closes them when it ends; null = none
 * @param runEvents every typed event of each {@link Coordinator#rollout()} also goes here, on the run's context: what
 *                  tests wait on instead of progress lines; null = none
 */
public record CoordinatorOptions(GateWiring gates, Silences silences, Consumer<RunEvent> runEvents) {
    public CoordinatorOptions {
        gates = gates == null ? GateWiring.none() : gates;
        silences = silences == null ? Silences.none() : silences;
        runEvents = runEvents == null ? e -> { } : runEvents;
    }

    /** No gates, no silences, no tap. */
    public static CoordinatorOptions none() {
        return new CoordinatorOptions(null, null, null);
    }

    /** These gates, nothing else. */
    public static CoordinatorOptions gates(GateWiring gates) {
        return new CoordinatorOptions(gates, null, null);
    }
}
