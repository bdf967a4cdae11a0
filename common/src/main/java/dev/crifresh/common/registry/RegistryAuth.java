package dev.crifresh.common.registry;

/**
 * One registry's credential as containerd or docker holds it; empty strings for absent parts.
 * toString never shows the secret parts.
 */
public record RegistryAuth(String host, String username, String password, String identityToken) {
    @Override
    public String toString() {
        return "RegistryAuth[host=" + host + ", username=" + (username.isEmpty() ? "" : "<set>")
                + ", password=" + (password.isEmpty() ? "" : "<set>")
                + ", identityToken=" + (identityToken.isEmpty() ? "" : "<set>") + "]";
    }
}
