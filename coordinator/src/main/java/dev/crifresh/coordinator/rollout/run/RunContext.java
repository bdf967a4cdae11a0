package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.kube.EventOps;
import dev.crifresh.coordinator.kube.LeaseLock;
import dev.crifresh.coordinator.kube.NodeOps;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.silence.Silences;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Everything one {@link Rollout} is built from, given once at construction: nothing of a run is configured after it.
 * {@link Rollout}'s constructor is the run's composition root: it hands each part only its settings record
 * (docs/internals.md, "Wiring: from a flag to the part that reads it").
 *
 * @param context  the one Vert.x context the run works on
 * @param io       the cluster and the reboot driver, unfenced: the run fences every write itself
 * @param progress the progress lines
 * @param clock    the wall clock (ownership annotations' times, Events)
 * @param options  what the embedder adds: gates, silences, the API server's host, a tap on the run's events
 */
public record RunContext(Vertx vertx, Context context, Io io, NodeClassifier classifier, CoordinatorSettings settings,
                         ProgressListener progress, Clock clock, Options options) {

    public RunContext {
        Objects.requireNonNull(vertx, "vertx");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(classifier, "classifier");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(progress, "progress");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(options, "options");
    }

    /** The run's ports to the cluster and the machines, as the API gives them (unfenced). */
    public record Io(NodeOps nodes, PodOps pods, LeaseLock lease, EventOps events, RebootDriver driver) {
        public Io {
            Objects.requireNonNull(nodes, "nodes");
            Objects.requireNonNull(pods, "pods");
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(events, "events");
            Objects.requireNonNull(driver, "driver");
        }
    }

    /**
     * What the embedder adds to a run.
     *
     * @param gates     the rollout gates (blockers, etcd, pull proof); {@link Gates#none} for none
     * @param silences  the Alertmanager silences for nodes while they are down; closed at the end
     * @param apiHost   the host of the API server URL this run uses (to tell a reboot that takes the API server away), or null
     * @param runEvents every {@link RunEvent} of the run also goes here, on the run's context (a test's typed view)
     */
    public record Options(Gates gates, Silences silences, String apiHost, Consumer<RunEvent> runEvents) {
        public Options {
            Objects.requireNonNull(gates, "gates");
            silences = silences == null ? Silences.none() : silences;
            runEvents = runEvents == null ? e -> { } : runEvents;
        }
    }
}
