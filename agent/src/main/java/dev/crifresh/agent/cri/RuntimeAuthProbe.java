package dev.crifresh.agent.cri;

import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.common.evidence.RuntimeAuth;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.CriStatusConfig;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The runtime-status proof's comparison: the registry credentials containerd reports in CRI
 * {@code Status(verbose)} ({@link CriStatusConfig}) against those of the config files it loads
 * ({@link RegistryFingerprints}, the evaluation's one reading), both fingerprinted with the key that reading used
 * (the credentials are never logged or published; only "same" or "different" is).
 * Anything but a complete, readable answer is {@link RuntimeAuth.State#UNAVAILABLE}: today's rules decide.
 */
public final class RuntimeAuthProbe implements AutoCloseable {
    private final CriStatusSource source;

    public RuntimeAuthProbe(CriStatusSource source) {
        this.source = source;
    }

    /**
     * Blocking: asks the runtime, then compares with the evaluation's reading of the loaded files.
     *
     * @param files the evaluation's one reading ({@code RegistryFingerprints.of}), fingerprinted with {@code key}
     * @param key   the HMAC key {@code files} was fingerprinted with; the runtime's credentials are fingerprinted
     *              with it too
     */
    public RuntimeAuth compare(RegistryFingerprints.Result files, byte[] key) {
        Map<String, String> info;
        try {
            info = source.statusInfo();
        } catch (CriStatusException e) {
            return new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, e.getMessage());
        }
        String config = info.get("config");
        if (config == null) {
            return new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, "the CRI status has no config");
        }
        CriStatusConfig.Result parsed = CriStatusConfig.parse(config);
        if (parsed instanceof CriStatusConfig.NotReported none) {
            return new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, none.why());
        }
        if (parsed instanceof CriStatusConfig.Failed failed) {
            return new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, failed.message());
        }
        if (!files.parseFailures().isEmpty()) {
            return new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, "the config files do not parse");
        }
        Map<String, String> held;
        try {
            held = CredentialFingerprint.fingerprints(key, ((CriStatusConfig.Reported) parsed).credentials());
        } catch (IllegalArgumentException e) {
            return new RuntimeAuth(RuntimeAuth.State.UNAVAILABLE, "the CRI status config: " + e.getMessage());
        }
        if (held.equals(files.loaded())) {
            return new RuntimeAuth(RuntimeAuth.State.SAME, "CRI status, " + held.size() + " registr"
                    + (held.size() == 1 ? "y" : "ies"));
        }
        return new RuntimeAuth(RuntimeAuth.State.DIFFERENT, "CRI status: " + differing(held, files.loaded()));
    }

    /** Which hosts differ, by name only. */
    private static String differing(Map<String, String> held, Map<String, String> files) {
        TreeSet<String> hosts = new TreeSet<>(held.keySet());
        hosts.addAll(files.keySet());
        hosts.removeIf(h -> Objects.equals(held.get(h), files.get(h)));
        return "registr" + (hosts.size() == 1 ? "y " : "ies ") + String.join(", ", hosts);
    }

    @Override
    public void close() {
        source.close();
    }
}
