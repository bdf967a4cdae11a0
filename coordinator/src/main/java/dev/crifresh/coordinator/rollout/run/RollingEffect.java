package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.rollout.observe.RunEvent;
import java.time.Duration;

/**
 * What the rolling phase does ({@link RollingStep}): carried out by {@link RollingPhase}, each type by its own
 * {@link Handler} method ({@link #dispatch}).
 */
sealed interface RollingEffect {

    /** Who carries the effects out: one method per type. */
    interface Handler {
        void startRoll(StartRoll s);

        void dropRoll(DropRoll d);

        void deleted(Deleted d);

        void feed(Feed f);

        void emit(Emit e);

        void armBlocked(ArmBlocked a);

        void cancelBlocked(CancelBlocked c);

        void pump(Pump p);

        void pumpLater(PumpLater p);

        void rollAgain(RollAgain r);

        void untaint(Untaint u);
    }

    /** Routes {@code effect} to its method of {@code h}; a type without one fails loudly. */
    static void dispatch(RollingEffect effect, Handler h) {
        if (effect instanceof StartRoll s) {
            h.startRoll(s);
        } else if (effect instanceof DropRoll d) {
            h.dropRoll(d);
        } else if (effect instanceof Deleted d) {
            h.deleted(d);
        } else if (effect instanceof Feed f) {
            h.feed(f);
        } else if (effect instanceof Emit e) {
            h.emit(e);
        } else if (effect instanceof ArmBlocked a) {
            h.armBlocked(a);
        } else if (effect instanceof CancelBlocked c) {
            h.cancelBlocked(c);
        } else if (effect instanceof Pump p) {
            h.pump(p);
        } else if (effect instanceof PumpLater p) {
            h.pumpLater(p);
        } else if (effect instanceof RollAgain r) {
            h.rollAgain(r);
        } else if (effect instanceof Untaint u) {
            h.untaint(u);
        } else {
            throw new IllegalStateException("unhandled rolling effect " + effect);
        }
    }

    /** The queued roll of {@code node} starts: it is in flight from now on ({@link RollingState#started}). */
    record StartRoll(String node) implements RollingEffect {
    }

    /** The queued roll of {@code node} is dropped, not attempted: its node was deleted before its turn. */
    record DropRoll(String node) implements RollingEffect {
    }

    /** The node is reported deleted, with why. */
    record Deleted(String node, String why) implements RollingEffect {
    }

    /** Tells the run ({@link RunInput.Idle}, {@link RunInput.Blocked}, a {@link RunInput.Halt}). */
    record Feed(RunInput input) implements RollingEffect {
    }

    /** Tells the observer. */
    record Emit(RunEvent event) implements RollingEffect {
    }

    /** Sets the blocked timer: when it fires with nothing started since, the run is blocked. */
    record ArmBlocked(Duration after) implements RollingEffect {
    }

    /** Cancels the blocked timer. */
    record CancelBlocked() implements RollingEffect {
    }

    /** Starts whatever fits now. */
    record Pump() implements RollingEffect {
    }

    /** Starts whatever fits, later on the run's context (a roll may report its end from inside a pump). */
    record PumpLater() implements RollingEffect {
    }

    /** The node is rolled again like any node of this run, after the others; {@code note}: why. */
    record RollAgain(NodeFacts facts, String note) implements RollingEffect {
    }

    /** The rebooted node's taint comes off; no node starts until it is done ({@link RollingState#untaintsPending}). */
    record Untaint(String node) implements RollingEffect {
    }
}
