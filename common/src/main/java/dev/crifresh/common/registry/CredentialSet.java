package dev.crifresh.common.registry;

import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;

/**
 * The credentials found in one document, one per normalised host. The same host twice with the same
 * credential is one entry; with different credentials nobody can say which one containerd or docker uses,
 * so the document is ambiguous.
 */
final class CredentialSet {
    private final Map<String, RegistryAuth> byHost = new TreeMap<>();
    private final Map<String, KeyPath> firstSeenAt = new TreeMap<>();

    void add(RegistryAuth auth, KeyPath where) throws InvalidRegistryConfig {
        RegistryAuth earlier = byHost.putIfAbsent(auth.host(), auth);
        if (earlier == null) {
            firstSeenAt.put(auth.host(), where);
        } else if (!earlier.equals(auth)) {
            throw new InvalidRegistryConfig("registry " + auth.host() + " has two different credentials, at "
                    + firstSeenAt.get(auth.host()) + " and at " + where + ": ambiguous");
        }
    }

    /** Sorted by host. */
    RegistryParse.Parsed toParsed() {
        return new RegistryParse.Parsed(new ArrayList<>(byHost.values()));
    }
}
