package dev.crifresh.coordinator.rollout.node;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Drives one node's {@link NodeStep}: each input gives the next state and its effects, carried out in order. The
 * epoch moves on with each new kind of state; an input asked for in another epoch is dropped here, and nowhere else.
 * An input that arrives while effects are being carried out waits its turn (no re-entrant step). Used on the run's
 * context only, by {@link NodeRunner}.
 */
final class NodeLoop {
    /** An input waiting its turn, with the epoch it was asked for in. */
    private record Pending(long epoch, NodeInput input) {
    }

    private final ArrayDeque<Pending> inbox = new ArrayDeque<>();
    private final Consumer<NodeEffect> carryOut;
    private NodeState state;
    private long epoch;
    private boolean stepping;

    NodeLoop(NodeState start, Consumer<NodeEffect> carryOut) {
        this.state = start;
        this.carryOut = carryOut;
    }

    NodeState state() {
        return state;
    }

    /** The epoch of the current state: an answer carries the epoch it was asked for in. */
    long epoch() {
        return epoch;
    }

    /** Takes an input asked for in {@code asked} (an epoch); dropped when the roll has moved on since. */
    void deliver(long asked, NodeInput input) {
        if (asked != epoch) {
            return;
        }
        inbox.add(new Pending(asked, input));
        if (stepping) {
            return;
        }
        stepping = true;
        try {
            while (!inbox.isEmpty()) {
                Pending next = inbox.poll();
                if (next.epoch() != epoch) {
                    continue;
                }
                NodeStep.Step step = NodeStep.next(state, next.input());
                if (step.state().getClass() != state.getClass()) {
                    epoch++;
                }
                state = step.state();
                for (NodeEffect effect : step.effects()) {
                    carryOut.accept(effect);
                }
            }
        } finally {
            stepping = false;
        }
    }
}
