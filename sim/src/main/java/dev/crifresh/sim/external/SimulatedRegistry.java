package dev.crifresh.sim.external;

import dev.crifresh.common.registry.RegistryHosts;
import dev.crifresh.sim.scenario.Credential;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The scenario's private registry as a pull sees it: it serves every image under its host to any
 * credential except the revoked ones, and answers a revoked credential as a token endpoint does (401).
 * Images on other hosts are public. Pure: no I/O, no state.
 */
public final class SimulatedRegistry {
    private final String host;
    private final List<Credential> revoked;

    public SimulatedRegistry(String host, List<Credential> revoked) {
        this.host = RegistryHosts.normalise(host);
        this.revoked = List.copyOf(revoked);
    }

    /** What a pull of one image result in. {@code imageId} on success, {@code reason}/{@code message} on failure. */
    public record Pull(boolean pulled, String imageId, String reason, String message) {
        static Pull ok(String imageId) {
            return new Pull(true, imageId, null, null);
        }

        static Pull failed(String reason, String message) {
            return new Pull(false, null, reason, message);
        }
    }

    /**
     * Pulls {@code image} with the credential the node's running containerd loaded.
     *
     * @param loaded empty when containerd holds no credential for this registry
     */
    public Pull pull(String image, Optional<Credential> loaded) {
        String imageHost = hostOf(image);
        if (!imageHost.equals(host)) {
            return Pull.ok(digestRef(image));
        }
        if (loaded.isEmpty() || revoked.contains(loaded.get())) {
            String repository = repositoryOf(image);
            return Pull.failed("ErrImagePull", "Failed to pull image \"" + image + "\": failed to pull and unpack image \""
                    + image + "\": failed to resolve reference \"" + image + "\": failed to authorize: failed to fetch"
                    + " oauth token: unexpected status from GET request to https://" + host + "/token?scope=repository%3A"
                    + repository.replace("/", "%2F") + "%3Apull&service=" + host + ": 401 Unauthorized");
        }
        return Pull.ok(digestRef(image));
    }

    /** The registry host of an image reference, as containerd resolves it (no host = docker.io). */
    static String hostOf(String image) {
        int slash = image.indexOf('/');
        if (slash < 0) {
            return "docker.io";
        }
        String first = image.substring(0, slash);
        boolean isHost = first.contains(".") || first.contains(":") || first.equals("localhost");
        return isHost ? RegistryHosts.normalise(first) : "docker.io";
    }

    private static String repositoryOf(String image) {
        int slash = image.indexOf('/');
        String rest = slash < 0 ? image : image.substring(slash + 1);
        int at = rest.indexOf('@');
        if (at >= 0) {
            rest = rest.substring(0, at);
        }
        int colon = rest.lastIndexOf(':');
        return colon >= 0 ? rest.substring(0, colon) : rest;
    }

    private static String digestRef(String image) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(image.getBytes(StandardCharsets.UTF_8));
            int at = image.indexOf('@');
            String name = at >= 0 ? image.substring(0, at) : image;
            int colon = name.lastIndexOf(':');
            if (colon > name.lastIndexOf('/')) {
                name = name.substring(0, colon);
            }
            return name + "@sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
