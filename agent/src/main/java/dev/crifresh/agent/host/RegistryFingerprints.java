package dev.crifresh.agent.host;

import dev.crifresh.common.registry.ContainerdConfigFile;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.registry.RegistryHosts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Registry credential fingerprints from the TOML files containerd loads, read as containerd reads them
 * ({@link ContainerdConfigFile}: only the CRI section its {@code version} selects). Documents are taken in
 * load order (the main config, then its imports breadth first); containerd's import merge replaces a
 * plugin's whole table with the later document's, so a later document that has the CRI section replaces
 * every credential before it.
 */
public final class RegistryFingerprints {
    private RegistryFingerprints() {
    }

    /**
     * @param fingerprints  normalised host → fingerprint; empty when no key was given
     * @param parseFailures one entry per document that is not valid registry TOML ({@code path: problem})
     */
    public record Result(Map<String, String> fingerprints, List<String> parseFailures) {
        public Result {
            fingerprints = Map.copyOf(fingerprints);
            parseFailures = List.copyOf(parseFailures);
        }
    }

    /** @param fingerprintKey the HMAC key, or null to only check that the documents parse */
    public static Result of(List<ConfigDocument> documents, byte[] fingerprintKey) {
        Map<String, RegistryAuth> byHost = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        for (ConfigDocument doc : documents) {
            ContainerdConfigFile.Result parsed = ContainerdConfigFile.parse(doc.text());
            if (parsed instanceof ContainerdConfigFile.Failed failed) {
                failures.add(doc.path() + ": " + failed.message());
            } else if (parsed instanceof ContainerdConfigFile.Parsed ok && ok.definesSection()) {
                byHost.clear();
                ok.credentials().forEach(auth -> byHost.put(RegistryHosts.normalise(auth.host()), auth));
            }
        }
        Map<String, String> fingerprints = new TreeMap<>();
        if (fingerprintKey != null) {
            byHost.forEach((host, auth) -> fingerprints.put(host, CredentialFingerprint.of(fingerprintKey, auth)));
        }
        return new Result(fingerprints, failures);
    }
}
