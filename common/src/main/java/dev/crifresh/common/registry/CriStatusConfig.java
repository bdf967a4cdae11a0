package dev.crifresh.common.registry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The registry credentials a running containerd 1.x holds, from the JSON of its loaded CRI config that CRI
 * {@code Status(verbose=true)} returns under {@code info["config"]}: {@code .registry.configs[host].auth}
 * with the TOML's field names ({@code username}, {@code password}, {@code auth}, {@code identitytoken}), read
 * exactly as the TOML entry is ({@link AuthEntry}). containerd 2.x reports no registry section there: that is
 * {@link NotReported}, not an empty set. A pure function of the text; never quotes a value.
 */
public final class CriStatusConfig {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private CriStatusConfig() {
    }

    public sealed interface Result {
    }

    /** The credentials containerd holds, sorted by host; empty when it holds none. */
    public record Reported(List<RegistryAuth> credentials) implements Result {
        public Reported {
            credentials = List.copyOf(credentials);
        }
    }

    /** The status carries no registry section (containerd 2.x): it says nothing about credentials. */
    public record NotReported(String why) implements Result {
    }

    /** The status's config could not be read; never quotes a value. */
    public record Failed(String message) implements Result {
    }

    public static Result parse(String configJson) {
        Objects.requireNonNull(configJson, "configJson");
        JsonNode root;
        try {
            root = JSON.readTree(configJson);
        } catch (JacksonException e) {
            return new Failed("the CRI status config is not valid JSON");
        }
        if (root == null || !root.isObject()) {
            return new Failed("the CRI status config is not a JSON object");
        }
        JsonNode registry = root.get("registry");
        if (registry == null || !registry.isObject()) {
            return new NotReported("the CRI status config has no registry section");
        }
        JsonNode configs = registry.get("configs");
        if (configs == null || configs.isNull()) {
            return new Reported(List.of());
        }
        if (!configs.isObject()) {
            return new Failed("registry.configs of the CRI status config is not an object");
        }
        List<RegistryAuth> out = new ArrayList<>();
        KeyPath base = KeyPath.root("registry").child("configs");
        for (Map.Entry<String, JsonNode> e : configs.properties()) {
            JsonNode auth = e.getValue() == null ? null : e.getValue().get("auth");
            if (auth == null || auth.isNull()) {
                continue;
            }
            KeyPath where = base.hostChild(e.getKey()).child("auth");
            if (!auth.isObject()) {
                return new Failed(where + " of the CRI status config is not an object");
            }
            try {
                out.add(AuthEntry.containerd(e.getKey(), auth, where));
            } catch (InvalidRegistryConfig bad) {
                return new Failed(bad.getMessage());
            }
        }
        out.sort(Comparator.comparing(RegistryAuth::host));
        return new Reported(out);
    }
}
