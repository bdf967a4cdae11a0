package dev.crifresh.agent.publish;

import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import java.util.Map;

/**
 * What makes a new assessment worth an immediate publish: a different verdict, reason, proof, config
 * digest, registry fingerprints, boot or containerd. Anything else waits for the heartbeat.
 */
record PublishKey(Reason reason, Proof proof, String digest, Map<String, String> registries, String bootId,
                  Long containerdPid, Long containerdStartTicks) {

    static PublishKey of(Assessment a) {
        Evaluation e = a.evaluation();
        return new PublishKey(e.reason(), e.proof(), e.configDigest(), a.registries(), a.observation().bootId(),
                e.containerd() == null ? null : e.containerd().pid(),
                e.containerd() == null ? null : e.containerd().startTicks());
    }
}
