package dev.crifresh.common.registry;

/**
 * Reads registry auth from containerd TOML: {@code plugins.'io.containerd.cri.v1.images'.registry.configs}
 * and the containerd 1.x {@code plugins."io.containerd.grpc.v1.cri".registry.configs}. Talos' merged
 * {@code cri.toml} starts with {@code ## <path> (sha256:<hex>)} comment lines. {@code auth} (base64
 * {@code user:pass}) is decoded when username and password are empty.
 */
public final class CriRegistryConfig {
    private CriRegistryConfig() {
    }

    public static RegistryParse parse(String toml) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
