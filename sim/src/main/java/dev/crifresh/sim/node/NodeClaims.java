package dev.crifresh.sim.node;

import dev.crifresh.agent.host.ConfigDocument;
import dev.crifresh.agent.host.ConfigFileReader;
import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.agent.publish.ClaimsFactory;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.evidence.BootClock;
import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.evidence.WatchedFile;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Attestation claims about a simulated node as its agent would have made them, from the node's real
 * host root: containerd's pid and start, each config file read as the agent reads it, the registry
 * fingerprints of those files, all turned into claims by the agent's own {@link ClaimsFactory}. Used to
 * build the hostile attestations, which must look right in every respect but one.
 */
public final class NodeClaims {
    static final Duration VALIDITY = Duration.ofMinutes(15);
    static final String AGENT_VERSION = "crifresh-agent/sim";

    private NodeClaims() {
    }

    /** The claims for {@code reason} (fresh ones carry an ordering proof), issued at {@code issuedAt}. */
    public static AttestationClaims of(SimulatedNode node, byte[] fingerprintKey, Reason reason, Instant issuedAt) {
        Boot boot = node.boot();
        List<WatchedFile> files = new ArrayList<>();
        List<ConfigDocument> toml = new ArrayList<>();
        ConfigFileReader reader = new ConfigFileReader(ConfigFileReader.DEFAULT_MAX_BYTES);
        for (String nodePath : HostRoot.configFiles()) {
            ConfigFileReader.FileRead read = reader.read(nodePath, node.host().file(nodePath));
            if (!read.file().isReadable()) {
                throw new IllegalStateException("cannot read " + nodePath + " of " + node.name() + ": "
                        + read.file().readError());
            }
            files.add(read.file());
            if (nodePath.endsWith(".toml")) {
                toml.add(new ConfigDocument(nodePath, new String(read.content(), StandardCharsets.UTF_8)));
            }
        }
        files.sort(Comparator.comparing(WatchedFile::path));
        ProcessSample containerd = new ProcessSample(boot.criPid(), boot.criStartTicks(), List.of());
        Observation observation = new Observation(boot.bootId(), new BootClock(boot.wallTime(), Duration.ZERO), null,
                ProcFiles.CLK_TCK, List.of(containerd), files, issuedAt);
        Proof proof = reason.verdict() == Verdict.FRESH ? Proof.ORDERING : Proof.NONE;
        Evaluation evaluation = new Evaluation(reason.verdict(), reason, proof, reason.code(), containerd,
                boot.criStartedAt(), ConfigDigest.of(files).orElseThrow(), null);
        Assessment assessment = new Assessment(observation, evaluation,
                RegistryFingerprints.of(toml, fingerprintKey).fingerprints(), 0);
        return ClaimsFactory.claims(assessment, node.name(), node.uid(), issuedAt, VALIDITY,
                RuleSettings.DEFAULT_MARGIN, AGENT_VERSION);
    }
}
