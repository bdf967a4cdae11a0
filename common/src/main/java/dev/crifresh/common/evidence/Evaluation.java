package dev.crifresh.common.evidence;

import java.time.Instant;

/**
 * The result of applying the rules to one observation.
 *
 * @param verdict             fresh, stale or unknown
 * @param reason              the reason code (its verdict always equals {@code verdict})
 * @param proof               ordering or content when fresh, none otherwise
 * @param message             one human sentence explaining the verdict, no credential in it
 * @param containerd          the single CRI containerd, or null when not exactly one was found
 * @param containerdStartedAt its start as a wall time (boot wall time + start ticks); null if unknown
 * @param configDigest        {@link ConfigDigest} of the watched files; null when a file was unreadable
 * @param memory              the memory to pass to the next evaluation (always pass it on, even after an
 *                            unknown verdict): for a single containerd with a readable config, the memory
 *                            of that containerd; otherwise the previous memory carried on (null if none),
 *                            so a live change seen earlier is never forgotten
 */
public record Evaluation(
        Verdict verdict,
        Reason reason,
        Proof proof,
        String message,
        ProcessSample containerd,
        Instant containerdStartedAt,
        String configDigest,
        EvaluationMemory memory) {
}
