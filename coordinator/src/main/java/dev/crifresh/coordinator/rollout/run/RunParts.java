package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.gate.Gates;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import dev.crifresh.coordinator.rollout.observe.RunSilences;
import dev.crifresh.coordinator.rollout.view.NodeView;
import dev.crifresh.coordinator.rollout.view.RunInformers;
import dev.crifresh.coordinator.rollout.view.SharedNodeList;
import io.vertx.core.Context;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The run's parts that its rolls ({@link RollingPhase}, each roll's {@link RunHost}) and its node events
 * ({@link RunNodes}, {@link JoinedDecisions}) read or tell: built once by {@link Rollout}'s constructor, the one place
 * the run is wired; each receives the parts themselves, never a class that forwards to them.
 *
 * @param context    the run's context: {@code runOnContext} runs an action later, not re-entrant
 * @param loop       the run's step loop: its state, epoch and inputs
 * @param view       the run's view of the cluster
 * @param informers  classifies a node's latest state now
 * @param gates      the rollout gates ({@code Gates.none} when the run has none)
 * @param freshNodes every node read from the API server, one read shared between the rolls that ask together
 * @param silences   the Alertmanager silences of the run
 * @param mayWrite   whether the run may act (its fence: the Lease held, the run open)
 * @param observer   progress lines and Events
 * @param results    the report's records
 */
record RunParts(Context context, RunLoop loop, NodeView view, RunInformers informers, Gates gates,
                SharedNodeList<NodeFacts> freshNodes, RunSilences silences, BooleanSupplier mayWrite,
                Consumer<RunEvent> observer, RunResults results) {
}
