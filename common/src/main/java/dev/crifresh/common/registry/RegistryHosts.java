package dev.crifresh.common.registry;

/**
 * One spelling per registry host, so containerd's and docker's names compare equal: scheme, path and
 * trailing slash dropped, lower case, and {@code index.docker.io}/{@code registry-1.docker.io} →
 * {@code docker.io}.
 */
public final class RegistryHosts {
    private RegistryHosts() {
    }

    public static String normalise(String host) {
        throw new UnsupportedOperationException("pending: issue 2");
    }
}
