package dev.crifresh.common.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * One containerd config file as containerd itself reads it: its {@code version}, its {@code imports} (as
 * written; {@code ContainerdImports} resolves them) and the registry credentials of the one CRI section
 * containerd reads for that version:
 * <ul>
 *   <li>{@code version = 3} (containerd 2.x): {@code plugins.'io.containerd.cri.v1.images'.registry.configs};</li>
 *   <li>{@code version = 2}: {@code plugins.'io.containerd.grpc.v1.cri'.registry.configs} only (containerd 1.x
 *       reads it, containerd 2.x migrates it to the images plugin);</li>
 *   <li>any other version, or none, with either CRI section present: not understood, a failure — which
 *       credential containerd holds cannot be told.</li>
 * </ul>
 * A pure function of the text, safe to fuzz: it returns a failure for any bad input, never throws.
 */
public final class ContainerdConfigFile {
    static final String IMAGES_PLUGIN = "io.containerd.cri.v1.images";
    static final String CRI_V1_PLUGIN = "io.containerd.grpc.v1.cri";

    private ContainerdConfigFile() {
    }

    public sealed interface Result {
    }

    /**
     * @param version         the {@code version} key, 0 when absent
     * @param imports         the {@code imports} entries as written, in order
     * @param definesSection  the file has the CRI plugin table containerd reads for its version: when
     *                        containerd merges imports, such a table replaces the earlier one entirely
     * @param credentials     the credentials in that table, sorted by host
     */
    public record Parsed(int version, List<String> imports, boolean definesSection, List<RegistryAuth> credentials)
            implements Result {
        public Parsed {
            imports = List.copyOf(imports);
            credentials = List.copyOf(credentials);
        }
    }

    /** Why the file cannot be read as containerd would; never quotes a value (it may hold a credential). */
    public record Failed(String message) implements Result {
    }

    public static Result parse(String toml) {
        Objects.requireNonNull(toml, "toml");
        JsonNode root;
        try {
            root = CriRegistryConfig.TOML.readTree(toml);
        } catch (JacksonException e) {
            return new Failed(CriRegistryConfig.describe(e));
        } catch (RuntimeException e) {
            return new Failed("malformed TOML");
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return new Parsed(0, List.of(), false, List.of());
        }
        if (!root.isObject()) {
            return new Failed("not a TOML table");
        }
        JsonNode versionNode = root.get("version");
        int version = 0;
        if (versionNode != null && !versionNode.isMissingNode()) {
            if (!versionNode.isIntegralNumber() || !versionNode.canConvertToInt()) {
                return new Failed("version is not an integer");
            }
            version = versionNode.intValue();
        }
        List<String> imports = new ArrayList<>();
        JsonNode importsNode = root.get("imports");
        if (importsNode != null && !importsNode.isMissingNode()) {
            if (!importsNode.isArray()) {
                return new Failed("imports is not an array");
            }
            for (JsonNode entry : importsNode) {
                if (!entry.isString()) {
                    return new Failed("imports holds a value that is not a string");
                }
                imports.add(entry.stringValue());
            }
        }
        try {
            JsonNode plugins = CriRegistryConfig.table(root.get("plugins"), KeyPath.root("plugins"));
            boolean hasImages = plugins != null && plugins.get(IMAGES_PLUGIN) != null;
            boolean hasCriV1 = plugins != null && plugins.get(CRI_V1_PLUGIN) != null;
            String plugin = switch (version) {
                case 3 -> IMAGES_PLUGIN;
                case 2 -> CRI_V1_PLUGIN;
                default -> null;
            };
            if (plugin == null) {
                if (hasImages || hasCriV1) {
                    return new Failed("config version " + version + " has a CRI plugin section, but containerd"
                            + " reads registry credentials only from version 2 or 3 files");
                }
                return new Parsed(version, imports, false, List.of());
            }
            CredentialSet found = new CredentialSet();
            CriRegistryConfig.collect(root, plugin, found);
            boolean defines = plugin.equals(IMAGES_PLUGIN) ? hasImages : hasCriV1;
            return new Parsed(version, imports, defines, found.toParsed().credentials());
        } catch (InvalidRegistryConfig e) {
            return new Failed(e.getMessage());
        }
    }
}
