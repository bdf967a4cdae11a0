package dev.crifresh.common.registry;

/** Reads {@code auths.<host>.{username,password,auth,identitytoken}} from a docker {@code config.json}. */
public final class DockerConfig {
    private DockerConfig() {
    }

    public static RegistryParse parse(String json) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
