package dev.crifresh.common.registry;

import java.util.Objects;

/**
 * One registry's credential as containerd or docker holds it; empty strings for absent parts.
 * toString never shows the secret parts.
 */
public record RegistryAuth(String host, String username, String password, String identityToken) {
    public RegistryAuth {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(identityToken, "identityToken");
    }

    @Override
    public String toString() {
        return "RegistryAuth[host=" + host + ", username=" + (username.isEmpty() ? "" : "<set>")
                + ", password=" + (password.isEmpty() ? "" : "<set>")
                + ", identityToken=" + (identityToken.isEmpty() ? "" : "<set>") + "]";
    }
}
