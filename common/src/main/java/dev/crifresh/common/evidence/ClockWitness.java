package dev.crifresh.common.evidence;

import java.time.Duration;
import java.time.Instant;

/**
 * Compares containerd's socket stamp (its wall clock at containerd's start, {@link ContainerdSocket}) with
 * containerd's start as the agent derives it from {@code /proc} (boot-relative ticks converted with the
 * boot wall time, which moves with every clock step). Pure: DESIGN, "The clock witness".
 *
 * <ul>
 *   <li>{@link Agrees}: the socket was bound no earlier than the start allows (the estimate's error and
 *       the kernel's coarse file clock) and no later than containerd's start-up allows: no step since;
 *   <li>{@link SteppedForward}: the socket is earlier: the clock was behind when containerd started and
 *       has been stepped forward since; ordering must be judged in the socket's clock;
 *   <li>{@link SteppedBack}: the socket is later than any start-up takes: the clock ran ahead and was
 *       stepped back;
 *   <li>{@link NoWitness}: no usable socket (missing, unreadable, not a socket, touched since it was
 *       bound): today's rules only.
 * </ul>
 */
public final class ClockWitness {
    /**
     * File stamps come from the kernel's coarse clock ({@code current_time()}, updated once per jiffy),
     * which lags the precise wall clock by up to one jiffy: 10 ms at the smallest HZ (100).
     */
    public static final Duration COARSE_CLOCK = Duration.ofMillis(10);
    /**
     * The longest exec-to-bind time of containerd that still counts as "no step": containerd binds its
     * socket after loading every plugin (it logs the time as {@code containerd successfully booted in …s}). Only liveness depends on it: a slower start reads as a backward step (unknown, a reboot);
     * a backward step smaller than this is judged by today's rules, which such a step only makes stricter.
     */
    public static final Duration STARTUP_LIMIT = Duration.ofSeconds(10);
    /**
     * Safety depends on this one: in the socket's clock the agent only knows when containerd bound its
     * socket, not when it read its config (earlier, before loading its plugins). A config stamp must be
     * this much more than the margin before the socket's stamp to count as read. containerd 1.6 bound it
     * 0.26–0.62 s after its start on a loaded two-core machine (the reality suite's real containerd).
     */
    public static final Duration STARTUP_RESERVE = Duration.ofSeconds(2);
    /**
     * containerd chmods and chowns the socket right after binding it, so its ctime follows its mtime by
     * microseconds. A larger gap means the socket was touched, re-moded or re-stamped since: not a witness.
     */
    public static final Duration TOUCH_LIMIT = Duration.ofSeconds(1);

    private ClockWitness() {
    }

    /** What the socket says about the clock since containerd started. */
    public sealed interface Reading {
        /** One phrase for the verdict's message. */
        String describe();
    }

    /** Nothing usable: today's rules only. */
    public record NoWitness(String why) implements Reading {
        public String describe() {
            return "no clock witness (" + why + ")";
        }
    }

    /** The socket agrees with the start: no clock step since containerd started. */
    public record Agrees(Duration socketAfterStart) implements Reading {
        public String describe() {
            return "the socket agrees with the start (" + Durations.text(socketAfterStart.abs())
                    + (socketAfterStart.isNegative() ? " before" : " after") + ")";
        }
    }

    /**
     * The clock was behind at containerd's start and has been stepped forward by at least {@code behind}.
     *
     * @param socketAt the socket's stamp: containerd's bind time in the clock of its start
     */
    public record SteppedForward(Instant socketAt, Duration behind) implements Reading {
        public String describe() {
            return "the socket's stamp is " + Durations.text(behind)
                    + " earlier than containerd's start, so the clock was stepped forward since";
        }
    }

    /** The clock ran ahead at containerd's start and has been stepped back by about {@code ahead}. */
    public record SteppedBack(Duration ahead) implements Reading {
        public String describe() {
            return "the socket's stamp is " + Durations.text(ahead)
                    + " later than containerd's start, more than its start-up takes, so the clock was stepped back since";
        }
    }

    /**
     * @param socket        the socket as read (null: none read)
     * @param startedAt     containerd's start in today's clock (boot wall time + start ticks, truncated)
     * @param estimateError the error of the boot wall time estimate
     */
    public static Reading read(ContainerdSocket socket, Instant startedAt, Duration estimateError) {
        if (socket == null) {
            return new NoWitness("containerd's socket was not read");
        }
        if (!socket.usable()) {
            return new NoWitness(EvidenceRules.oneLine(socket.path() + ": "
                    + (socket.problem() == null ? "no stamps" : socket.problem())));
        }
        Duration touched = Duration.between(socket.mtime(), socket.ctime());
        if (touched.abs().compareTo(TOUCH_LIMIT) > 0) {
            return new NoWitness(EvidenceRules.oneLine(socket.path() + " was changed " + Durations.text(touched.abs())
                    + (touched.isNegative() ? " before" : " after") + " it was bound"));
        }
        Duration lowest = estimateError.abs().plus(COARSE_CLOCK);
        Duration highest = STARTUP_LIMIT.plus(estimateError.abs());
        Duration afterStart = Duration.between(startedAt, socket.mtime());
        if (afterStart.compareTo(lowest.negated()) < 0) {
            return new SteppedForward(socket.mtime(), afterStart.negated());
        }
        if (afterStart.compareTo(highest) > 0) {
            return new SteppedBack(afterStart);
        }
        return new Agrees(afterStart);
    }
}
