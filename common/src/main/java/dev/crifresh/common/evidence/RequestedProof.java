package dev.crifresh.common.evidence;

/**
 * Rule 11: a proof the operator asked for that the running containerd cannot give (the runtime-status proof on
 * containerd 2.x, whose CRI status reports no registry section; or its socket did not answer). The evaluation went
 * on with the other rules, and its message says so, never silently; the verdict, reason and proof stay. Pure.
 */
public final class RequestedProof {
    /** The wire name of the runtime-status proof, as requested with {@code --cri-socket}. */
    public static final String RUNTIME_STATUS = "runtime-status";

    private RequestedProof() {
    }

    /** Whether the requested runtime-status proof did not apply: asked, and the runtime's answer was unavailable. */
    public static boolean fellBack(RuntimeAuth runtime, boolean asked) {
        return asked && runtime.state() == RuntimeAuth.State.UNAVAILABLE;
    }

    /** The evaluation with the fallback named at the end of its message when the requested proof did not apply. */
    public static Evaluation apply(Evaluation e, RuntimeAuth runtime, boolean asked) {
        if (!fellBack(runtime, asked)) {
            return e;
        }
        return note(e, RUNTIME_STATUS, EvidenceRules.oneLine(runtime.detail()));
    }

    /** The evaluation with "the requested proof does not apply: why; proof used instead" at the end of its message. */
    public static Evaluation note(Evaluation e, String requested, String why) {
        String message = e.message() + " (the requested " + requested + " proof does not apply: " + why
                + "; proof used instead: " + e.proof().wire() + ")";
        return new Evaluation(e.verdict(), e.reason(), e.proof(), message, e.containerd(), e.containerdStartedAt(),
                e.configDigest(), e.memory());
    }
}
