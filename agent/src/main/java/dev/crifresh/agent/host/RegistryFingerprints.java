package dev.crifresh.agent.host;

import dev.crifresh.common.registry.ContainerdConfigFile;
import dev.crifresh.common.registry.ContainerdReading;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.PullCredentials;
import dev.crifresh.common.registry.RegistryAuth;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Registry credential fingerprints from the TOML files containerd loads, in its load order (the main
 * config, then its imports breadth first), read as containerd reads them ({@link ContainerdReading}: the
 * CRI section and merge rules of containerd 1.x or 2.x; when the two would differ, Talos mode tells them
 * apart by the root config's version, generic mode cannot and fails), and then followed the way a pull looks
 * its credential up ({@link PullCredentials}: {@code registry.auths}, the {@code hosts.toml} under
 * {@code config_path}, the exact-key lookup). Each host's fingerprint is that of the credential a pull from it
 * sends.
 */
public final class RegistryFingerprints {
    private RegistryFingerprints() {
    }

    /**
     * @param fingerprints  normalised host → fingerprint of the credential a pull from it sends; empty when no
     *                      key was given
     * @param parseFailures one entry per document that is not valid registry TOML ({@code path: problem}),
     *                      or why containerd's reading of all of them, or the credential a pull sends, cannot be told
     * @param problems      credentials the files spell that no pull sends ({@link PullCredentials.Problem})
     * @param loaded        normalised host → fingerprint of the credential containerd's registry table holds
     *                      ({@code configs} with {@code auths} copied in): what a runtime status reports
     * @param configsHosts  the normalised hosts of {@code registry.configs} entries with a credential (containerd
     *                      records its {@code cri-registry-configs} deprecation for them)
     */
    public record Result(Map<String, String> fingerprints, List<String> parseFailures,
                         List<PullCredentials.Problem> problems, Map<String, String> loaded, List<String> configsHosts) {
        public Result {
            fingerprints = Map.copyOf(fingerprints);
            parseFailures = List.copyOf(parseFailures);
            problems = List.copyOf(problems);
            loaded = Map.copyOf(loaded);
            configsHosts = List.copyOf(configsHosts);
        }

        public Result(Map<String, String> fingerprints, List<String> parseFailures) {
            this(fingerprints, parseFailures, List.of(), Map.of(), List.of());
        }
    }

    /** Talos mode, no hosts.toml tree. */
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
        return of(documents, fingerprintKey, talos, generation, HostsDirectory.NONE);
    }

    /** @param hosts the {@code config_path} tree as containerd would read it now */
    public static Result of(List<ConfigDocument> documents, byte[] fingerprintKey, boolean talos,
                            ContainerdReading.Generation generation, PullCredentials.HostsFiles hosts) {
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
        if (!failures.isEmpty()) {
            return new Result(Map.of(), failures);
        }
        ContainerdReading.Result reading = generation == null ? ContainerdReading.read(parsed, talos)
                : ContainerdReading.read(parsed, generation);
        if (reading instanceof ContainerdReading.Failed failed) {
            return new Result(Map.of(), List.of(failed.message()));
        }
        ContainerdReading.Read read = (ContainerdReading.Read) reading;
        if (!read.criFails().isEmpty()) {
            // No pull sends anything, and a reboot loads the same files: the operator must fix them.
            return new Result(Map.of(), List.of(), read.criFails().stream().map(why -> new PullCredentials.Problem(
                    PullCredentials.Kind.CONFIG_REFUSED, "*", why)).toList(), Map.of(), List.of());
        }
        ContainerdReading.RegistryTable table = read.registry();
        PullCredentials.Result pulls = PullCredentials.resolve(table, hosts, layouts(parsed, talos, generation));
        if (pulls instanceof PullCredentials.Failed doubt) {
            return new Result(Map.of(), List.of(doubt.message()));
        }
        PullCredentials.Resolved resolved = (PullCredentials.Resolved) pulls;
        List<String> configsHosts = new ArrayList<>(new TreeSet<>(table.configs().values().stream()
                .map(RegistryAuth::host).toList()));
        Map<String, String> fingerprints = new TreeMap<>();
        Map<String, String> loaded = new TreeMap<>();
        if (fingerprintKey != null) {
            // Filed under the host the pull is from: a credential found under another key (hosts.toml sent the
            // pull there) is fingerprinted as this host's, as the desired credential for this host is.
            resolved.sent().forEach((host, auth) -> fingerprints.put(host, CredentialFingerprint.of(fingerprintKey,
                    new RegistryAuth(host, auth.username(), auth.password(), auth.identityToken()))));
            resolved.loaded().forEach((host, auth) -> loaded.put(host, CredentialFingerprint.of(fingerprintKey,
                    new RegistryAuth(host, auth.username(), auth.password(), auth.identityToken()))));
        }
        return new Result(fingerprints, failures, resolved.problems(), loaded, configsHosts);
    }

    /**
     * How containerd finds and reads {@code hosts.toml}: the generation named, else in Talos mode the generations
     * Talos pairs with the root config's version (2: 1.x, 3 and above: 2.x), else every generation (a doubt where
     * they differ). 2.0 reads as 2.1 does (from source).
     */
    private static List<PullCredentials.HostLayout> layouts(List<ContainerdReading.Document> docs, boolean talos,
                                                            ContainerdReading.Generation generation) {
        if (generation != null) {
            return switch (generation) {
                case ONE -> List.of(PullCredentials.HostLayout.ONE);
                case V2_1 -> List.of(PullCredentials.HostLayout.TWO_ONE);
                case V2_2, V2_3 -> List.of(PullCredentials.HostLayout.TWO_TWO);
                case TWO -> PullCredentials.HostLayout.TWO;
            };
        }
        if (talos && !docs.isEmpty()) {
            return docs.get(0).parsed().version() >= 3 ? PullCredentials.HostLayout.TWO
                    : List.of(PullCredentials.HostLayout.ONE);
        }
        return PullCredentials.HostLayout.ALL;
    }
}
