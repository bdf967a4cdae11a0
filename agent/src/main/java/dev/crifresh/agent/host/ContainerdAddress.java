package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ContainerdCommandLine;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * The address containerd binds its gRPC socket at, as containerd resolves it: its {@code --address} (flags
 * override the config: {@code applyFlags} runs after {@code LoadConfig}), else the {@code address} of the last
 * loaded config file that sets one ({@code [grpc]}, or version 4's {@code [plugins.'io.containerd.server.v1.grpc']}),
 * else containerd's default. The string is used as given: containerd passes it to {@code bind} unchanged.
 */
final class ContainerdAddress {
    /** containerd's {@code defaults.DefaultAddress} on Linux. */
    static final String DEFAULT = "/run/containerd/containerd.sock";
    private static final String GRPC_SERVER_PLUGIN = "io.containerd.server.v1.grpc";
    private static final TomlMapper TOML = new TomlMapper();

    /** An address, or why none can be told. */
    record Resolved(String address, String problem) {
    }

    private ContainerdAddress() {
    }

    /**
     * @param cmdline containerd's command line
     * @param loaded  the config files containerd loads, in its load order (a file that does not parse is skipped:
     *                the config check makes such a node unknown anyway)
     */
    static Resolved of(List<String> cmdline, List<ConfigDocument> loaded) {
        if (ContainerdCommandLine.parse(cmdline) instanceof ContainerdCommandLine.Flags flags) {
            Set<String> given = new LinkedHashSet<>(flags.all("address"));
            if (given.size() > 1) {
                return new Resolved(null, "its command line names " + given.size() + " addresses");
            }
            if (given.size() == 1) {
                return new Resolved(given.iterator().next(), null);
            }
        }
        String configured = null;
        for (ConfigDocument doc : loaded) {
            try {
                JsonNode root = TOML.readTree(doc.text());
                configured = text(root.path("grpc").path("address"), configured);
                configured = text(root.path("plugins").path(GRPC_SERVER_PLUGIN).path("address"), configured);
            } catch (JacksonException e) {
                // not parsed: unknown through the config check
            }
        }
        return new Resolved(configured == null ? DEFAULT : configured, null);
    }

    private static String text(JsonNode node, String otherwise) {
        return node.isString() && !node.asString().isEmpty() ? node.asString() : otherwise;
    }
}
