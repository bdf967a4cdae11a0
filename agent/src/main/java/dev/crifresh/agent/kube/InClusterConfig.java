package dev.crifresh.agent.kube;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where a pod reaches the API server, as client-go's {@code rest.InClusterConfig} reads it: the
 * {@code KUBERNETES_SERVICE_HOST}/{@code KUBERNETES_SERVICE_PORT} the kubelet injects, and the service
 * account's CA bundle and (bound, rotating) token from the projected volume.
 *
 * @param host      the API server's address (an IP or a name; an IPv6 address without brackets)
 * @param port      its HTTPS port
 * @param caFile    PEM bundle that verifies the API server's certificate
 * @param tokenFile the service-account token, rewritten by the kubelet before it expires
 */
public record InClusterConfig(String host, int port, Path caFile, Path tokenFile) {
    /** The kubelet's mount point of the service account's projected volume. */
    public static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");
    /** Overrides {@link #SERVICE_ACCOUNT_DIR} (a test, or a volume mounted elsewhere). */
    public static final String SERVICE_ACCOUNT_DIR_ENV = "CRIFRESH_SERVICE_ACCOUNT_DIR";

    public InClusterConfig {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("no API server host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("API server port " + port + " is not a port");
        }
    }

    /**
     * The configuration of a pod: empty when {@code KUBERNETES_SERVICE_HOST} or
     * {@code KUBERNETES_SERVICE_PORT} is unset (not in a cluster), or when the service account's token
     * file is missing (no token mounted: the caller falls back to another configuration).
     *
     * @throws IllegalArgumentException the variables are set but unusable (a port that is not a number)
     */
    public static Optional<InClusterConfig> fromEnvironment(Map<String, String> env) {
        String host = env.get("KUBERNETES_SERVICE_HOST");
        String port = env.get("KUBERNETES_SERVICE_PORT");
        if (host == null || host.isBlank() || port == null || port.isBlank()) {
            return Optional.empty();
        }
        String dirOverride = env.get(SERVICE_ACCOUNT_DIR_ENV);
        Path dir = dirOverride == null || dirOverride.isBlank() ? SERVICE_ACCOUNT_DIR : Path.of(dirOverride);
        Path token = dir.resolve("token");
        if (!Files.exists(token)) {
            return Optional.empty();
        }
        int portNumber;
        try {
            portNumber = Integer.parseInt(port.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("KUBERNETES_SERVICE_PORT '" + port + "' is not a port number");
        }
        return Optional.of(new InClusterConfig(host.trim(), portNumber, dir.resolve("ca.crt"), token));
    }
}
