package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.registry.RegistryHosts;
import dev.crifresh.sim.node.TalosConfigFiles;
import dev.crifresh.sim.scenario.Credential;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42's examples as real pulls: each starts the real containerd of a generation (Talos' command line, under
 * the {@link MachineLock}) on files that spell the current credential for a {@link RecordingRegistry} host that
 * accepts only that credential, pulls through the CRI with no credential in the request, and runs the agent
 * ({@code observe}, in-process, on the real /proc) in Talos mode, in generic mode and with the generation named.
 * Where the example applies the pull fails (asserted: the example is real there), and the agent must never say
 * fresh with the current credential's fingerprint. Where it does not apply (an older containerd ignores the
 * spelling) the pull works and nothing is asserted of the agent but that invariant.
 *
 * <p>Threat model: defended side — config shapes an operator's ordinary tools write (a key's case, a base64 form,
 * an old config version in a drop-in, a {@code hosts.toml} in containerd's default directory, a value the CRI
 * plugin refuses, a {@code hosts.toml} naming certificate files that are not there).
 */
class IssueExamplesRealityTest {
    private static final String GRPC = "plugins.\"io.containerd.grpc.v1.cri\"";
    private static final String IMAGES = "plugins.\"io.containerd.cri.v1.images\"";
    private static final String HOSTS = "/etc/cri/conf.d/hosts";
    private static final Set<String> ALL = Set.of("1.6", "1.7", "2.1", "2.2", "2.3");
    private static final Set<String> TWO = Set.of("2.1", "2.2", "2.3");
    private static final Credential CURRENT = new Credential("deploy-bot", "examples-current1");
    private static final Credential OLD = new Credential("deploy-bot", "examples-old");

    @TempDir
    static Path shared;
    static RecordingRegistry registry;
    static String host;
    static String mirror;
    static Path fingerprintKey;

    @BeforeAll
    static void start() throws IOException {
        RealityGate.require();
        registry = RecordingRegistry.start(shared.resolve("registry"), 2);
        host = registry.hosts().get(0);
        mirror = registry.hosts().get(1);
        registry.accept(host, basic(CURRENT));
        fingerprintKey = shared.resolve("fingerprint.key");
        Files.write(fingerprintKey, "issue-examples-fingerprint-key-32-bytes".getBytes(StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stop() {
        if (registry != null) {
            registry.close();
        }
    }

    /**
     * One example.
     *
     * @param id       short name
     * @param name     what it shows
     * @param applies  the generations whose pull fails on it
     * @param runsOn   the generations it runs on (a superset of applies)
     * @param files    the generation → node path → text (the root is {@link TalosConfigFiles#CONTAINERD_TOML})
     */
    record Example(String id, String name, Set<String> applies, Set<String> runsOn,
                   Function<ContainerdGeneration, Map<String, String>> files) {
    }

    private static String basic(Credential c) {
        return "Basic " + b64(c);
    }

    private static String b64(Credential c) {
        return Base64.getEncoder().encodeToString((c.username() + ":" + c.password()).getBytes(StandardCharsets.UTF_8));
    }

    /** The root config and a base {@code cri.toml} in the generation's own version, with {@code registry} in it. */
    private static Map<String, String> node(ContainerdGeneration g, String registryTables, String... extraImports) {
        return nodeWith(g, "", registryTables, extraImports);
    }

    /** The same, with {@code pluginLines} in the table of the plugin that holds the registry. */
    private static Map<String, String> nodeWith(ContainerdGeneration g, String pluginLines, String registryTables,
                                                String... extraImports) {
        boolean two = g.two();
        String version = two ? "version = 3\n" : "version = 2\n";
        List<String> imports = new ArrayList<>(List.of(TalosConfigFiles.CRI_TOML));
        imports.addAll(List.of(extraImports));
        Map<String, String> files = new LinkedHashMap<>();
        files.put(TalosConfigFiles.CONTAINERD_TOML, version + "imports = [" + String.join(", ",
                imports.stream().map(ShapeGenerator::q).toList()) + "]\n");
        String plugin = two ? IMAGES : GRPC;
        String base = two ? "[" + IMAGES + "]\n  snapshotter = \"native\"\n" + pluginLines
                : "[" + GRPC + "]\n" + pluginLines + "[" + GRPC + ".containerd]\n  snapshotter = \"native\"\n";
        files.put(TalosConfigFiles.CRI_TOML, version + base + registryTables.replace("REG", plugin + ".registry"));
        return files;
    }

    private static String configs(String auth) {
        return "[REG.configs.\"" + host + "\".auth]\n" + auth;
    }

    private static String userPass(Credential c) {
        return "  username = \"" + c.username() + "\"\n  password = \"" + c.password() + "\"\n";
    }

    private static Stream<Example> examples() {
        String half = b64(CURRENT).substring(0, 8);
        String rest = b64(CURRENT).substring(8);
        return Stream.of(
                new Example("case", "auth = current, Username/Password = old: 2.x matches the capitalised keys"
                        + " case-insensitively and ParseAuth takes the username first", TWO, ALL,
                        g -> node(g, configs("  auth = \"" + b64(CURRENT) + "\"\n  Username = \"" + OLD.username()
                                + "\"\n  Password = \"" + OLD.password() + "\"\n"))),
                new Example("case-upper", "auth = current, USERNAME/PASSWORD = old: 1.x's go-toml v1 tries the"
                        + " all-capitals spelling of a key too, 2.x any case", ALL, ALL,
                        g -> node(g, configs("  auth = \"" + b64(CURRENT) + "\"\n  USERNAME = \"" + OLD.username()
                                + "\"\n  PASSWORD = \"" + OLD.password() + "\"\n"))),
                new Example("b64-space", "auth with a space inside: Go's StdEncoding refuses it, the pull sends"
                        + " nothing", ALL, ALL, g -> node(g, configs("  auth = \"" + half + " " + rest + "\"\n"))),
                new Example("b64-tab", "auth with a tab inside", ALL, ALL,
                        g -> node(g, configs("  auth = \"" + half + "\\t" + rest + "\"\n"))),
                new Example("b64-unpadded", "auth without its padding", ALL, ALL,
                        g -> node(g, configs("  auth = \"" + b64(CURRENT).replace("=", "") + "\"\n"))),
                new Example("v1-drop-in", "a version 1 drop-in carrying the credential under a version 3 root:"
                        + " 2.1 and 2.2 re-stamp it and drop its plugins.cri registry", Set.of("2.1", "2.2"), TWO,
                        g -> {
                            Map<String, String> f = node(g, "", "/etc/cri/conf.d/20-credential.toml");
                            f.put("/etc/cri/conf.d/20-credential.toml", "version = 1\n[plugins.cri.registry.configs.\""
                                    + host + "\".auth]\n" + userPass(CURRENT));
                            return f;
                        }),
                new Example("default-hosts-dir", "no config_path: 2.2 and 2.3 read /etc/containerd/certs.d, whose"
                        + " hosts.toml sends the pull to another host (2.1 does not)", Set.of("2.2", "2.3"), ALL, g -> {
                            Map<String, String> f = node(g, configs(userPass(CURRENT)));
                            f.put("/etc/containerd/certs.d/" + host + "/hosts.toml", "server = \"http://" + mirror
                                    + "\"\n[host.\"http://" + mirror + "\"]\n  capabilities = [\"pull\", \"resolve\"]\n");
                            return f;
                        }),
                new Example("mirrors-and-config-path", "mirrors beside config_path: the CRI plugin does not start",
                        ALL, ALL, g -> node(g, "[REG]\n  config_path = \"" + HOSTS + "\"\n"
                                + "[REG.mirrors.\"" + host + "\"]\n  endpoint = [\"http://" + host + "\"]\n"
                                + configs(userPass(CURRENT)))),
                new Example("bogus-timeout", "image_pull_progress_timeout = 'bogus': the CRI plugin does not start",
                        Set.of("1.7", "2.1", "2.2", "2.3"), ALL,
                        g -> nodeWith(g, "  image_pull_progress_timeout = 'bogus'\n", configs(userPass(CURRENT)))),
                new Example("missing-ca", "hosts.toml names a ca file that is not there: every pull fails", ALL, ALL,
                        g -> {
                            Map<String, String> f = node(g, "[REG]\n  config_path = \"" + HOSTS + "\"\n"
                                    + configs(userPass(CURRENT)));
                            f.put(HOSTS + "/" + host + "/hosts.toml", "server = \"http://" + host + "\"\n[host.\"http://"
                                    + host + "\"]\n  capabilities = [\"pull\", \"resolve\"]\n  ca = \"/etc/missing-ca.pem\"\n");
                            return f;
                        }),
                new Example("missing-client", "hosts.toml names client files that are not there", ALL, ALL, g -> {
                    Map<String, String> f = node(g, "[REG]\n  config_path = \"" + HOSTS + "\"\n"
                            + configs(userPass(CURRENT)));
                    f.put(HOSTS + "/" + host + "/hosts.toml", "server = \"http://" + host + "\"\n[host.\"http://" + host
                            + "\"]\n  capabilities = [\"pull\", \"resolve\"]\n"
                            + "  client = [[\"/etc/missing.crt\", \"/etc/missing.key\"]]\n");
                    return f;
                }));
    }

    @TestFactory
    Stream<DynamicNode> eachExampleOnEachGeneration(@TempDir Path tmp) {
        List<DynamicNode> out = new ArrayList<>();
        for (ContainerdGeneration g : ContainerdGeneration.all()) {
            List<DynamicNode> cases = new ArrayList<>();
            examples().filter(e -> e.runsOn().contains(g.name())).forEach(e -> cases.add(DynamicTest.dynamicTest(
                    g + ": " + e.id() + " — " + e.name(), () -> judge(g, e, tmp.resolve(g.name() + "-" + e.id())))));
            out.add(DynamicContainer.dynamicContainer(g.toString(), cases));
        }
        return out.stream();
    }

    private static void judge(ContainerdGeneration g, Example e, Path dir) {
        RealityGate.require(g);
        CriNode node = new CriNode(dir);
        e.files().apply(g).forEach((path, text) -> node.write(path, text, false));
        node.write(TalosConfigFiles.BASE_RUNTIME_SPEC, "{\"ociVersion\":\"1.0.2-dev\"}\n", false);
        List<String> watch = List.of(TalosConfigFiles.CONTAINERD_TOML, "/etc/cri/conf.d/*.toml");
        TruthTableTest.settle(Instant.now());
        MachineLock.acquire();
        try {
            CriProcesses.awaitNoneForeign(List.of());
            try (RealContainerd containerd = RealContainerd.startBooted(node, g)) {
                CriClient.Pull pull = containerd.cri().pull(RecordingRegistry.image(host));
                String named = switch (g.name()) {
                    case "1.6", "1.7" -> "one";
                    default -> g.name();
                };
                List<String[]> modes = List.of(new String[] {"--mode", "talos"}, new String[] {"--mode", "generic"},
                        new String[] {"--mode", "talos", "--containerd-generation", named},
                        new String[] {"--mode", "generic", "--containerd-generation", named});
                StringBuilder seen = new StringBuilder();
                for (String[] mode : modes) {
                    AgentView view = AgentView.observe(node, fingerprintKey, watch, mode);
                    seen.append(String.join(" ", mode)).append(" → ").append(view.summary()).append("; ");
                    if (!pull.ok()) {
                        assertFalse(view.verdict().equals("fresh") && fingerprint(CURRENT).equals(
                                view.registries().get(RegistryHosts.normalise(host))), g + " " + e.id() + " ("
                                + String.join(" ", mode) + "): the pull fails (" + pull.detail() + ") but the agent"
                                + " says fresh with the current credential's fingerprint: " + view.message());
                    }
                }
                System.out.println("issue example: " + g + ": " + e.id() + " → pull " + pull.summary() + "; agent "
                        + seen);
                if (e.applies().contains(g.name())) {
                    assertTrue(!pull.ok(), g + " " + e.id() + ": the example's pull should fail there: "
                            + pull.detail());
                }
            }
        } finally {
            MachineLock.release();
        }
    }

    private static String fingerprint(Credential c) {
        try {
            return CredentialFingerprint.of(Files.readAllBytes(fingerprintKey),
                    new RegistryAuth(host, c.username(), c.password(), ""));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
