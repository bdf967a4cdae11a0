package dev.crifresh.agent.host;

import dev.crifresh.common.registry.ContainerdConfigFile;
import dev.crifresh.common.registry.ContainerdReading;
import dev.crifresh.common.registry.CredentialFingerprint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Registry credential fingerprints from the TOML files containerd loads, in its load order (the main
 * config, then its imports breadth first), read as containerd reads them ({@link ContainerdReading}: the
 * CRI section and merge rules of containerd 1.x or 2.x; when the two would differ, Talos mode tells them
 * apart by the root config's version, generic mode cannot and fails).
 */
public final class RegistryFingerprints {
    private RegistryFingerprints() {
    }

    /**
     * @param fingerprints  normalised host → fingerprint; empty when no key was given
     * @param parseFailures one entry per document that is not valid registry TOML ({@code path: problem}),
     *                      or why containerd's reading of all of them cannot be told
     */
    public record Result(Map<String, String> fingerprints, List<String> parseFailures) {
        public Result {
            fingerprints = Map.copyOf(fingerprints);
            parseFailures = List.copyOf(parseFailures);
        }
    }

    /** Talos mode. */
    public static Result of(List<ConfigDocument> documents, byte[] fingerprintKey) {
        return of(documents, fingerprintKey, true);
    }

    /** @param fingerprintKey the HMAC key, or null to only check that the documents parse */
    public static Result of(List<ConfigDocument> documents, byte[] fingerprintKey, boolean talos) {
        return of(documents, fingerprintKey, talos, null);
    }

    /** @param generation the containerd that reads the files, or null to tell from the files */
    public static Result of(List<ConfigDocument> documents, byte[] fingerprintKey, boolean talos,
                            ContainerdReading.Generation generation) {
        List<ContainerdReading.Document> parsed = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (ConfigDocument doc : documents) {
            ContainerdConfigFile.Result result = ContainerdConfigFile.parse(doc.text());
            if (result instanceof ContainerdConfigFile.Failed failed) {
                failures.add(doc.path() + ": " + failed.message());
            } else if (result instanceof ContainerdConfigFile.Parsed ok) {
                parsed.add(new ContainerdReading.Document(doc.path(), ok));
            }
        }
        Map<String, String> fingerprints = new TreeMap<>();
        if (!failures.isEmpty()) {
            return new Result(fingerprints, failures);
        }
        ContainerdReading.Result reading = generation == null ? ContainerdReading.read(parsed, talos)
                : ContainerdReading.read(parsed, generation);
        if (reading instanceof ContainerdReading.Failed failed) {
            return new Result(fingerprints, List.of(failed.message()));
        }
        if (fingerprintKey != null && reading instanceof ContainerdReading.Read read) {
            read.byHost().forEach((host, auth) -> fingerprints.put(host, CredentialFingerprint.of(fingerprintKey, auth)));
        }
        return new Result(fingerprints, failures);
    }
}
