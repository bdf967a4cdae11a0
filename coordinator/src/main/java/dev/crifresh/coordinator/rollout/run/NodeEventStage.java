package dev.crifresh.coordinator.rollout.run;

/**
 * The run's state as its node events see it, and where each event goes in it: pure, {@link RunNodes} carries it out.
 * <ul>
 *   <li>an update of a node classified at the start: re-checked by the wait of the step, or heard by its roll;</li>
 *   <li>a node nobody classified at the start: waited for as joined while the run is under way;</li>
 *   <li>a joined node that settled: classified with the others before the plan, decided at once while rolling or
 *       waiting, else once the roll begins;</li>
 *   <li>after a joined node is decided (or one waited for is deleted): the rolls start what fits, or the fresh wait
 *       with nobody left in it ends.</li>
 * </ul>
 */
enum NodeEventStage {
    /** Locking or observing: nothing is classified yet. */
    STARTING,
    CONFIG_WAIT,
    /** Plan, gates, pre-flight, leftovers, placement: nothing rolls yet. */
    DECIDING,
    WAITING,
    ROLLING,
    DONE;

    /** Who hears of an update of a node that was classified at the start. */
    enum Update { NOBODY, CONFIG_WAIT, FRESH_WAIT, ROLLS }

    /** What becomes of a joined node that attested, or whose wait ran out. */
    enum Settled {
        /** The run is done, or the node is gone. */
        DROPPED,
        /** Not decided yet: it is classified with the nodes the plan looks at; a config-pending one joins the config wait. */
        PLANNED,
        DECIDED_NOW,
        /** Kept until the roll begins ({@link RunNodes#decidePending}). */
        DECIDED_WHEN_ROLLING
    }

    /** What follows once a joined node is decided and nothing of its own is under way. */
    enum AfterDecided { NOTHING, PUMP_ROLLS, END_FRESH_WAIT }

    static NodeEventStage of(RunStep.RunState state) {
        if (state instanceof RunStep.Locking || state instanceof RunStep.Observing) {
            return STARTING;
        } else if (state instanceof RunStep.ConfigWait) {
            return CONFIG_WAIT;
        } else if (state instanceof RunStep.Deciding) {
            return DECIDING;
        } else if (state instanceof RunStep.Waiting) {
            return WAITING;
        } else if (state instanceof RunStep.Rolling) {
            return ROLLING;
        } else if (state instanceof RunStep.Done) {
            return DONE;
        } else {
            throw new IllegalStateException("no node-event stage for the run state " + state);
        }
    }

    /** Whether node events still matter: not once the run is done. */
    boolean listens() {
        return this != DONE;
    }

    Update update() {
        return switch (this) {
            case CONFIG_WAIT -> Update.CONFIG_WAIT;
            case WAITING -> Update.FRESH_WAIT;
            case ROLLING -> Update.ROLLS;
            case STARTING, DECIDING, DONE -> Update.NOBODY;
        };
    }

    /** Whether a node nobody classified at the start is waited for as joined: only while the run is under way. */
    boolean takesJoined() {
        return switch (this) {
            case CONFIG_WAIT, DECIDING, WAITING, ROLLING -> true;
            case STARTING, DONE -> false;
        };
    }

    /** @param inView whether the node is still in the cluster */
    Settled settled(boolean inView) {
        if (!inView) {
            return Settled.DROPPED;
        }
        return switch (this) {
            case CONFIG_WAIT -> Settled.PLANNED;
            case WAITING, ROLLING -> Settled.DECIDED_NOW;
            case STARTING, DECIDING -> Settled.DECIDED_WHEN_ROLLING;
            case DONE -> Settled.DROPPED;
        };
    }

    /** Whether the fresh wait ends because no node is left in it (one settled, left, or was never added). */
    boolean endsFreshWait(boolean freshWaitEmpty) {
        return this == WAITING && freshWaitEmpty;
    }

    AfterDecided afterDecided(boolean freshWaitEmpty) {
        if (this == ROLLING) {
            return AfterDecided.PUMP_ROLLS;
        }
        return endsFreshWait(freshWaitEmpty) ? AfterDecided.END_FRESH_WAIT : AfterDecided.NOTHING;
    }
}
