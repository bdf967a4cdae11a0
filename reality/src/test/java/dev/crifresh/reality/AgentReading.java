package dev.crifresh.reality;

import dev.crifresh.agent.host.ConfigDocument;
import dev.crifresh.agent.host.ContainerdImports;
import dev.crifresh.agent.host.HostPaths;
import dev.crifresh.agent.host.HostsDirectory;
import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.common.registry.ContainerdReading;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The agent's production reading of a node's containerd config, for the differential test: the ONE place that
 * calls into the agent's reading ({@code RegistryFingerprints.of}, whose internals other branches change), so a
 * change of its signature or of what its result means is fixed here only. The files are found as the agent finds
 * them ({@link ContainerdImports} from the config on containerd's command line, every file of the node's
 * {@code /etc} counting as watched) and {@code hosts.toml} is read by {@link HostsDirectory} under the node's root.
 */
final class AgentReading {
    /** What the agent says a pull sends, or that it will not say. */
    sealed interface Said permits Doubt, Stale, Sends {
    }

    /** Unknown: the agent doubts its reading (a non-empty {@code parseFailures}, an import it cannot find). */
    record Doubt(String why) implements Said {
    }

    /** Stale: the files spell a credential that no pull sends ({@code problems}). */
    record Stale(String why) implements Said {
    }

    /** normalised host → fingerprint of the credential a pull from that host sends (a host absent: none). */
    record Sends(Map<String, String> fingerprints) implements Said {
    }

    /** How the agent is run: {@code auto} in Talos or generic mode, or with one generation named. */
    record Mode(String name, boolean talos, ContainerdReading.Generation generation) {
        static Mode autoTalos() {
            return new Mode("auto (Talos)", true, null);
        }

        static Mode autoGeneric() {
            return new Mode("auto (generic)", false, null);
        }

        /** {@code --containerd-generation <name>} for a generation the suites run. */
        static Mode named(String generation, boolean talos) {
            ContainerdReading.Generation g = switch (generation) {
                case "1.6", "1.7" -> ContainerdReading.Generation.ONE;
                case "2.1" -> ContainerdReading.Generation.V2_1;
                case "2.2" -> ContainerdReading.Generation.V2_2;
                case "2.3" -> ContainerdReading.Generation.V2_3;
                default -> throw new IllegalArgumentException("no agent generation for containerd " + generation);
            };
            return new Mode("--containerd-generation " + g.label() + (talos ? " (Talos)" : " (generic)"), talos, g);
        }
    }

    private AgentReading() {
    }

    /** The agent's reading of the files under {@code hostRoot}, containerd started with {@code --config config}. */
    static Said read(Path hostRoot, String config, byte[] key, Mode mode) {
        HostPaths paths = new HostPaths(hostRoot);
        Map<String, String> texts = etcFiles(hostRoot);
        ContainerdImports.Closure closure = new ContainerdImports(paths).resolve(config, texts);
        if (!closure.unwatched().isEmpty()) {
            return new Doubt("imports not found: " + closure.unwatched());
        }
        List<ConfigDocument> documents = new ArrayList<>();
        for (String path : closure.loaded()) {
            String text = texts.get(path);
            if (text == null) {
                return new Doubt(path + ": not valid UTF-8 or unreadable");
            }
            documents.add(new ConfigDocument(path, text));
        }
        RegistryFingerprints.Result result;
        try {
            result = RegistryFingerprints.of(documents, key, mode.talos(), mode.generation(),
                    new HostsDirectory(paths));
        } catch (UncheckedIOException e) {
            return new Doubt("hosts directory: " + e.getMessage());
        }
        if (!result.parseFailures().isEmpty()) {
            return new Doubt(String.join("; ", result.parseFailures()));
        }
        if (!result.problems().isEmpty()) {
            return new Stale(result.problems().stream().map(p -> p.kind() + " " + p.host() + ": " + p.detail())
                    .toList().toString());
        }
        return new Sends(result.fingerprints());
    }

    /** Every regular file under the node's {@code /etc}: node path → text (null when not valid UTF-8). */
    private static Map<String, String> etcFiles(Path hostRoot) {
        Map<String, String> out = new LinkedHashMap<>();
        Path etc = hostRoot.resolve("etc");
        if (!Files.isDirectory(etc)) {
            return out;
        }
        try (Stream<Path> walk = Files.walk(etc)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                String node = "/" + hostRoot.relativize(p).toString().replace('\\', '/');
                try {
                    out.put(node, StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(
                            Files.readAllBytes(p))).toString());
                } catch (CharacterCodingException e) {
                    out.put(node, null);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + etc, e);
        }
        return out;
    }
}
