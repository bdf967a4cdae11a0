package dev.crifresh.coordinator.gate;

import java.time.Duration;

/**
 * The rollout gates' flags.
 *
 * @param pullProof         which nodes get the runtime pull proof
 * @param pullProofImage    the private image on the rotated registry (required unless pull proof is off)
 * @param probeNamespace    where probe pods are created
 * @param pullProofTimeout  how long the kubelet may take to pull it
 * @param etcdCheck         how the etcd gate learns etcd's health
 * @param etcdTimeout       after a control plane returns, how long etcd may take to be healthy again
 * @param etcdPollInterval  how often etcd is asked while waiting for it
 * @param blockTimeout      how long one node may wait for its blockers (alert, pod) to clear
 * @param blockPollInterval how often blockers are looked at while a node waits
 */
public record GateSettings(
        PullProofMode pullProof,
        String pullProofImage,
        String probeNamespace,
        Duration pullProofTimeout,
        EtcdCheckMode etcdCheck,
        Duration etcdTimeout,
        Duration etcdPollInterval,
        Duration blockTimeout,
        Duration blockPollInterval) {

    public GateSettings {
        if (pullProof != PullProofMode.OFF && (pullProofImage == null || pullProofImage.isBlank())) {
            throw new IllegalArgumentException("--pull-proof " + pullProof.wire() + " needs --pull-proof-image");
        }
        positive(pullProofTimeout, "--pull-proof-timeout");
        positive(etcdTimeout, "--etcd-timeout");
        positive(etcdPollInterval, "etcd poll interval");
        positive(blockTimeout, "--block-timeout");
        positive(blockPollInterval, "block poll interval");
    }

    /** Pull proof off, etcd not checked, no blockers: what an embedder gets without asking. */
    public static GateSettings off() {
        return new GateSettings(PullProofMode.OFF, null, "crifresh", Duration.ofMinutes(2), EtcdCheckMode.NONE,
                Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofMinutes(30), Duration.ofSeconds(30));
    }

    public GateSettings withPullProof(PullProofMode mode, String image) {
        return new GateSettings(mode, image, probeNamespace, pullProofTimeout, etcdCheck, etcdTimeout, etcdPollInterval,
                blockTimeout, blockPollInterval);
    }

    public GateSettings withProbeNamespace(String ns) {
        return new GateSettings(pullProof, pullProofImage, ns, pullProofTimeout, etcdCheck, etcdTimeout, etcdPollInterval,
                blockTimeout, blockPollInterval);
    }

    public GateSettings withPullProofTimeout(Duration d) {
        return new GateSettings(pullProof, pullProofImage, probeNamespace, d, etcdCheck, etcdTimeout, etcdPollInterval,
                blockTimeout, blockPollInterval);
    }

    public GateSettings withEtcdCheck(EtcdCheckMode mode) {
        return new GateSettings(pullProof, pullProofImage, probeNamespace, pullProofTimeout, mode, etcdTimeout,
                etcdPollInterval, blockTimeout, blockPollInterval);
    }

    public GateSettings withEtcdTimeout(Duration d, Duration poll) {
        return new GateSettings(pullProof, pullProofImage, probeNamespace, pullProofTimeout, etcdCheck, d, poll,
                blockTimeout, blockPollInterval);
    }

    public GateSettings withBlockTimeout(Duration d, Duration poll) {
        return new GateSettings(pullProof, pullProofImage, probeNamespace, pullProofTimeout, etcdCheck, etcdTimeout,
                etcdPollInterval, d, poll);
    }

    private static void positive(Duration d, String flag) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(flag + " must be a positive duration");
        }
    }
}
