package dev.crifresh.common.registry;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * Reads registry auth from containerd TOML: {@code plugins.'io.containerd.cri.v1.images'.registry.configs}
 * (containerd 2.x, Talos ≥ 1.9) and the containerd 1.x {@code plugins."io.containerd.grpc.v1.cri".registry.configs}.
 * Talos' merged {@code cri.toml} starts with {@code ## <path> (sha256:<hex>)} comment lines. {@code auth} (base64
 * {@code user:pass}) is decoded when username and password are empty. A document without any registry
 * section yields no credentials.
 */
public final class CriRegistryConfig {
    /** The CRI plugins whose {@code registry.configs} containerd reads credentials from. */
    static final List<String> CRI_PLUGINS = List.of("io.containerd.cri.v1.images", "io.containerd.grpc.v1.cri");

    /**
     * TOML parser messages known to be fixed texts (they never quote the input), so they may be shown.
     * Anything else is left out of the error: it could echo part of a secret.
     */
    private static final Set<String> FIXED_TOML_MESSAGES = Set.of(
            "Duplicate key", "Table redefined", "Newline not permitted here", "Unknown token",
            "Unknown escape sequence", "Premature end of file", "Illegal control character",
            "Comment not permitted here", "Number out of bounds");

    static final TomlMapper TOML = new TomlMapper();

    private CriRegistryConfig() {
    }

    public static RegistryParse parse(String toml) {
        Objects.requireNonNull(toml, "toml");
        JsonNode root;
        try {
            root = TOML.readTree(toml);
        } catch (JacksonException e) {
            return new RegistryParse.Failed(describe(e));
        }
        try {
            CredentialSet found = new CredentialSet();
            if (root != null && !root.isMissingNode()) {
                for (String plugin : CRI_PLUGINS) {
                    collect(root, plugin, found);
                }
            }
            return found.toParsed();
        } catch (InvalidRegistryConfig e) {
            return new RegistryParse.Failed(e.getMessage());
        }
    }

    static void collect(JsonNode root, String plugin, CredentialSet found) throws InvalidRegistryConfig {
        KeyPath path = KeyPath.root("plugins");
        JsonNode node = table(root.get("plugins"), path);
        for (String key : List.of(plugin, "registry", "configs")) {
            if (node == null) {
                return;
            }
            path = path.child(key);
            node = table(node.get(key), path);
        }
        if (node == null) {
            return;
        }
        for (Map.Entry<String, JsonNode> hostEntry : node.properties()) {
            KeyPath hostPath = path.hostChild(hostEntry.getKey());
            JsonNode hostConfig = table(hostEntry.getValue(), hostPath);
            KeyPath authPath = hostPath.child("auth");
            JsonNode auth = table(hostConfig.get("auth"), authPath);
            if (auth != null) {
                found.add(AuthEntry.containerd(hostEntry.getKey(), auth, authPath), authPath);
            }
        }
    }

    /** The node as a table, null when absent; anything else where a table belongs is an error. */
    static JsonNode table(JsonNode node, KeyPath path) throws InvalidRegistryConfig {
        if (node == null || node.isMissingNode()) {
            return null;
        }
        if (!node.isObject()) {
            throw new InvalidRegistryConfig(path + " is not a table");
        }
        return node;
    }

    static String describe(JacksonException e) {
        StringBuilder message = new StringBuilder("malformed TOML");
        TokenStreamLocation location = e.getLocation();
        if (location != null && location.getLineNr() > 0) {
            message.append(" at line ").append(location.getLineNr());
            if (location.getColumnNr() > 0) {
                message.append(", column ").append(location.getColumnNr());
            }
        }
        String reason = e.getOriginalMessage();
        if (reason != null && FIXED_TOML_MESSAGES.contains(reason.trim())) {
            message.append(": ").append(reason.trim());
        }
        return message.toString();
    }
}
