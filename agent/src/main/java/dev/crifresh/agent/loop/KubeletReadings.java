package dev.crifresh.agent.loop;

import dev.crifresh.common.evidence.KubeletReady;
import dev.crifresh.common.evidence.KubeletWitness;

/**
 * The latest Ready condition of the agent's own Node (from its Node watch), for the kubelet witness; null until
 * the watch delivered one. When what the witness concludes from it changes, {@code onChange} runs, so the loop
 * evaluates again at once rather than at the heartbeat. Thread-safe: the watch writes, the evaluation reads.
 */
public final class KubeletReadings {
    private volatile KubeletReady latest;
    private volatile Runnable onChange = () -> { };

    /** The latest reading; null without Node information. */
    public KubeletReady current() {
        return latest;
    }

    /** Called when the watch delivers the own Node. */
    public void seen(KubeletReady ready) {
        boolean before = KubeletWitness.runtimeNotReady(latest);
        latest = ready;
        if (KubeletWitness.runtimeNotReady(ready) != before) {
            onChange.run();
        }
    }

    /** What to run when the witness's conclusion changes (the loop's re-evaluation). */
    public void onChange(Runnable action) {
        onChange = action;
    }
}
