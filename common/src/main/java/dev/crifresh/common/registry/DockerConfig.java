package dev.crifresh.common.registry;

import java.util.Map;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads {@code auths.<host>.{username,password,auth,identitytoken}} from a docker {@code config.json}.
 * Keys may be URLs ({@code https://index.docker.io/v1/}); hosts are normalised. Credentials kept by a
 * credential helper ({@code credsStore}, {@code credHelpers}) are not in the file and are not read.
 */
public final class DockerConfig {
    // Two spellings of one key in one object: which one docker uses is an accident of its JSON decoder.
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private DockerConfig() {
    }

    public static RegistryParse parse(String json) {
        Objects.requireNonNull(json, "json");
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JacksonException e) {
            return new RegistryParse.Failed(describe(e));
        }
        if (root == null || root.isMissingNode()) {
            return new RegistryParse.Failed("docker config is empty");
        }
        try {
            return collect(root);
        } catch (InvalidRegistryConfig e) {
            return new RegistryParse.Failed(e.getMessage());
        }
    }

    private static RegistryParse collect(JsonNode root) throws InvalidRegistryConfig {
        if (!root.isObject()) {
            throw new InvalidRegistryConfig("docker config is not a JSON object");
        }
        CredentialSet found = new CredentialSet();
        KeyPath authsPath = KeyPath.root("auths");
        JsonNode auths = root.get("auths");
        if (auths == null || auths.isNull()) {
            return found.toParsed();
        }
        if (!auths.isObject()) {
            throw new InvalidRegistryConfig(authsPath + " is not an object");
        }
        for (Map.Entry<String, JsonNode> entry : auths.properties()) {
            KeyPath entryPath = authsPath.hostChild(entry.getKey());
            if (!entry.getValue().isObject()) {
                throw new InvalidRegistryConfig(entryPath + " is not an object");
            }
            found.add(AuthEntry.read(entry.getKey(), entry.getValue(), entryPath), entryPath);
        }
        return found.toParsed();
    }

    /** Location only: Jackson's JSON messages quote the offending token, which may be part of a secret. */
    private static String describe(JacksonException e) {
        StringBuilder message = new StringBuilder("malformed JSON");
        String reason = e.getOriginalMessage();
        if (reason != null && reason.startsWith("Duplicate Object property")) {
            message.append(" (duplicate key)");
        }
        TokenStreamLocation location = e.getLocation();
        if (location != null && location.getLineNr() > 0) {
            message.append(" at line ").append(location.getLineNr());
            if (location.getColumnNr() > 0) {
                message.append(", column ").append(location.getColumnNr());
            }
        }
        return message.toString();
    }
}
