package dev.crifresh.common.evidence;

import java.util.List;
import java.util.Objects;

/**
 * The evidence of containerd's introspection check (opt-in): what containerd's socket answered, and which
 * registries the config files give a credential, read as containerd reads them.
 *
 * @param socket          the node path of the socket that was asked (containerd's {@code --address})
 * @param answer          its answer, or why there is none
 * @param credentialHosts the registries the loaded files give a credential in {@code registry.configs}, sorted
 * @param readsAuths      whether the agent's reading of the files finds a {@code registry.auths} credential (which
 *                        containerd records as its {@code cri-registry-auths} deprecation)
 */
public record Introspection(String socket, IntrospectionAnswer answer, List<String> credentialHosts,
                            boolean readsAuths) {
    public Introspection {
        Objects.requireNonNull(socket, "socket");
        Objects.requireNonNull(answer, "answer");
        credentialHosts = List.copyOf(credentialHosts);
    }
}
