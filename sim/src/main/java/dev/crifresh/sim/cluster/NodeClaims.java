package dev.crifresh.sim.cluster;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.ConfigClaim;
import dev.crifresh.common.attest.ContainerdClaim;
import dev.crifresh.common.attest.FileClaim;
import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.common.evidence.Proof;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.evidence.WatchedFile;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Attestation claims about a simulated node as its agent would have made them, from the node's real
 * host root: containerd's pid and start, each config file's mtime and SHA-256, the credential
 * fingerprint. Used to build the hostile attestations, which must look right in every respect but one.
 */
final class NodeClaims {
    static final Duration VALIDITY = Duration.ofMinutes(15);
    static final String AGENT_VERSION = "crifresh-agent/sim";

    private NodeClaims() {
    }

    static AttestationClaims of(SimulatedNode node, String registry, byte[] fingerprintKey, Reason reason,
            Instant issuedAt) {
        Boot boot = node.boot();
        ContainerdClaim containerd = new ContainerdClaim(boot.criPid(), boot.criStartTicks(), ProcFiles.CLK_TCK,
                boot.criStartedAt());
        List<WatchedFile> files = watchedFiles(node.host());
        List<FileClaim> fileClaims = files.stream().map(f -> new FileClaim(f.path(), f.mtime(), f.sha256())).toList();
        ConfigClaim config = new ConfigClaim(ConfigDigest.of(files).orElseThrow(), fileClaims);
        RegistryAuth auth = new RegistryAuth(registry, node.credential().username(), node.credential().password(), "");
        return new AttestationClaims(AttestationClaims.VERSION, AttestationClaims.ISSUER, node.name(), node.uid(),
                boot.bootId(), issuedAt, issuedAt.plus(VALIDITY), reason.verdict(), reason.code(),
                reason.verdict() == dev.crifresh.common.evidence.Verdict.FRESH ? Proof.ORDERING : Proof.NONE,
                containerd, config, CredentialFingerprint.fingerprints(fingerprintKey, List.of(auth)),
                RuleSettings.DEFAULT_MARGIN.toMillis(), AGENT_VERSION);
    }

    /** The watched config files, sorted by node path, read from the host root. */
    static List<WatchedFile> watchedFiles(HostRoot host) {
        List<WatchedFile> files = new ArrayList<>();
        for (String nodePath : HostRoot.configFiles().stream().sorted().toList()) {
            Path file = host.file(nodePath);
            try {
                byte[] bytes = Files.readAllBytes(file);
                files.add(WatchedFile.readable(nodePath, Files.getLastModifiedTime(file).toInstant(), bytes.length,
                        ConfigDigest.sha256Hex(bytes)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        return files;
    }
}
