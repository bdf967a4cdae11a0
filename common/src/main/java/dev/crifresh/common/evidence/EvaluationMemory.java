package dev.crifresh.common.evidence;

/**
 * What the agent carries from one evaluation to the next, for one containerd lifetime.
 *
 * @param identity            the containerd this memory belongs to; memory of another identity is ignored
 * @param lastDigest          the config digest seen at the previous evaluation
 * @param loadedDigest        the digest proven loaded (by ordering) for this containerd; null if never proven
 * @param changedWhileRunning the agent saw the config digest change while this containerd ran (rule 6);
 *                            once set, only rule 4 (content) can prove freshness
 */
public record EvaluationMemory(
        ContainerdIdentity identity, String lastDigest, String loadedDigest, boolean changedWhileRunning) {
}
