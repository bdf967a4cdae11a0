package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which credential a pull sends (docs/design.md, "Which credential a pull sends"), on the real containerd of
 * every generation here, with a real pull: issue 36's second false fresh. In each "no pull sends it" shape the
 * files spell the current credential for the registry, containerd loaded exactly those files, and a CRI pull
 * without auth still fails — the deprecated {@code registry.auths} wins (AU1), the {@code configs} key has its
 * scheme (K1), {@code hosts.toml} sends the pull to the registry under another name (H3), or {@code hosts.toml}
 * is rewritten in place or replaced by {@code mv} while containerd runs (H5). The agent must never say fresh
 * there: it says stale with the reason that names the problem (a reboot cannot fix it) and publishes the
 * fingerprint of what the pull does send. The shapes that only look alike — an {@code Authorization} header in
 * {@code hosts.toml} or {@code registry.headers}, a mirror with the default fallback — pull fine and stay fresh
 * with the current credential's fingerprint.
 *
 * <p>Threat model: defended side — config shapes an operator's ordinary tools write (keys, deprecated tables,
 * {@code hosts.toml} written in place or renamed over); nothing here needs more than writing files.
 */
@SuppressWarnings("checkstyle:filelength") // a table of config shapes pulled through the real containerd
class PullPathRealityTest {
    private static final String GRPC = "plugins.\"io.containerd.grpc.v1.cri\"";
    private static final String IMAGES = "plugins.\"io.containerd.cri.v1.images\"";
    private static final String HOSTS = "/etc/cri/conf.d/hosts";
    /** The registry under another name: the chroot's /etc/hosts maps it to 127.0.0.1. */
    private static final String ALIAS = "registry-alias.test";
    private static final List<String> GENERATIONS = List.of("1.6", "1.7", "2.1", "2.2", "2.3");
    /** containerd 2.2's and 2.3's first default hosts directory, and a second config_path directory here. */
    private static final String CERTS_D = "/etc/containerd/certs.d";

    @TempDir
    static Path shared;
    static RealRegistry registry;
    static String image;
    static Credential current;
    static final Credential OLD = new Credential("deploy-bot", "pullpath-old");
    static Path fingerprintKey;

    @BeforeAll
    static void startRegistry() throws IOException {
        RealityGate.require();
        current = new Credential("deploy-bot", "pullpath-current");
        fingerprintKey = shared.resolve("fingerprint.key");
        Files.write(fingerprintKey, "reality-suite-fingerprint-key-32-bytes!".getBytes(StandardCharsets.UTF_8));
        registry = RealRegistry.start(shared.resolve("registry"), OLD);
        image = registry.push(OciLayout.write(shared.resolve("oci"), "v1", "pullpath"), "crifresh/probe", "v1");
        registry.rotate(current);
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    /**
     * One shape: the registry table (in the generation's own plugin), hosts.toml files by host directory (a directory
     * under {@link #HOSTS}, or an absolute node path; a third element names another file than hosts.toml), the
     * pull's outcome, and the agent's verdict.
     *
     * @param okOn      the generations whose pull works (and the agent says fresh with the current credential,
     *                  unless it doubts there)
     * @param failure   what the failing pull's error says; null for a 401 or "no basic auth credentials"
     * @param doubtedOn the generations on which the agent says unknown whatever the pull does (what it cannot read
     *                  exactly as containerd does: a wasted reboot at worst, never a fresh verdict)
     */
    record Shape(String id, String name, String registryTable, List<String[]> hostsFiles, Set<String> okOn,
                 String reason, String failure, Set<String> doubtedOn) {
        Shape(String id, String name, String registryTable, List<String[]> hostsFiles, boolean pullOk, String reason) {
            this(id, name, registryTable, hostsFiles, pullOk ? Set.copyOf(GENERATIONS) : Set.of(), reason, null);
        }

        Shape(String id, String name, String registryTable, List<String[]> hostsFiles, Set<String> okOn,
              String reason, String failure) {
            this(id, name, registryTable, hostsFiles, okOn, reason, failure, Set.of());
        }

        boolean pullOkOn(ContainerdGeneration g) {
            return okOn.contains(g.name());
        }
    }

    /** A self-signed CA certificate (public, no key anywhere): a {@code ca} file containerd can load. */
    static final String TEST_CA = """
            -----BEGIN CERTIFICATE-----
            MIIBnDCCAUOgAwIBAgIUcCanHW5BLgKqE/fkMuN4T4oFuTQwCgYIKoZIzj0EAwIw
            IzEhMB8GA1UEAwwYY3JpZnJlc2ggcmVhbGl0eSB0ZXN0IENBMCAXDTI2MTIwNjEz
            MTk0MFoYDzIxMjYxMTEyMTMxOTQwWjAjMSEwHwYDVQQDDBhjcmlmcmVzaCByZWFs
            aXR5IHRlc3QgQ0EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQXiAQhwcBFBwQa
            NlcOdTLeDurQ/1aaMMJgcQ3uo2agFjGuB+n6gVT0qKSbV1Xu81wV0eviRC7qr8X5
            6pndOaWYo1MwUTAdBgNVHQ4EFgQU09uKIxKwkEW3zjabtsAdzBFYHOAwHwYDVR0j
            BBgwFoAU09uKIxKwkEW3zjabtsAdzBFYHOAwDwYDVR0TAQH/BAUwAwEB/zAKBggq
            hkjOPQQDAgNHADBEAiAdK5iu7TTUA4Lv2ywNqCog972alpD15RB2u8P7yFZ/9AIg
            D1KfhHlFjsNz6HR5jpFl72IFQnqHk2LzqQ84nJPunr8=
            -----END CERTIFICATE-----
            """;

    /** A hosts.toml sending pulls to the registry itself over HTTP, with {@code extra} in its [host] table. */
    private static String selfWith(String extra) {
        return "server = \"http://" + registry.host() + "\"\n[host.\"http://" + registry.host() + "\"]\n"
                + "  capabilities = [\"pull\", \"resolve\"]\n" + extra;
    }

    private static String port() {
        return registry.host().substring(registry.host().indexOf(':') + 1);
    }

    private static String aliasHost() {
        return ALIAS + ":" + port();
    }

    /** A hosts.toml that sends every pull to the other name, as every generation reads it (a [host] table). */
    private static String redirect() {
        return "server = \"http://" + aliasHost() + "\"\n[host.\"http://" + aliasHost() + "\"]\n"
                + "  capabilities = [\"pull\", \"resolve\"]\n";
    }

    /** The registry's own host directory ({@code 127.0.0.1:<port>}; containerd tries {@code 127.0.0.1_<port>_} first). */
    private static String hostDir() {
        return registry.host();
    }

    /** The {@code 127.0.0.1_<port>_} spelling: 2.x reads it first, 1.x ignores it. */
    private static String underscoreDir() {
        return registry.host().replace(":", "_") + "_";
    }

    private static String userPass(String table, Credential c) {
        return "[REG." + table + ".auth]\n  username = \"" + c.username() + "\"\n  password = \"" + c.password() + "\"\n";
    }

    private static String basic(Credential c) {
        return "Basic " + Base64.getEncoder().encodeToString((c.username() + ":" + c.password())
                .getBytes(StandardCharsets.UTF_8));
    }

    @SuppressWarnings("checkstyle:methodlength") // a table of cases, one row per config shape pulled through
    private static Stream<Shape> shapes() {
        String h = "\"" + registry.host() + "\"";
        String configPath = "[REG]\n  config_path = \"" + HOSTS + "\"\n";
        return Stream.of(
                new Shape("AU1", "registry.auths 'http://host' (old) beside registry.configs 'host' (current):"
                        + " the deprecated auths wins", userPass("configs." + h, current)
                        + "[REG.auths.\"http://" + registry.host() + "\"]\n  username = \"" + OLD.username()
                        + "\"\n  password = \"" + OLD.password() + "\"\n", List.of(), false,
                        "RegistryAuthsOverrideConfigs"),
                new Shape("K1", "the registry.configs key spelled with its scheme is never looked up",
                        userPass("configs.\"http://" + registry.host() + "\"", current), List.of(), false,
                        "RegistryKeyNeverMatched"),
                new Shape("H3", "hosts.toml sends pulls to the registry under another name, whose credential is old",
                        configPath + userPass("configs." + h, current) + userPass("configs.\"" + aliasHost() + "\"", OLD),
                        List.<String[]>of(new String[] {hostDir(), redirect()}), false, "HostsTomlRedirectsPulls"),
                new Shape("H3s", "the same redirect by server alone: 2.x follows it, 1.x ignores a hosts.toml without"
                        + " [host] tables", configPath + userPass("configs." + h, current)
                        + userPass("configs.\"" + aliasHost() + "\"", OLD),
                        List.<String[]>of(new String[] {hostDir(), "server = \"http://" + aliasHost() + "\"\n"}),
                        Set.of("1.6", "1.7"), "HostsTomlRedirectsPulls", null),
                new Shape("H3u", "the same redirect in the host_port_ directory, which containerd reads first",
                        configPath + userPass("configs." + h, current) + userPass("configs.\"" + aliasHost() + "\"", OLD),
                        List.<String[]>of(new String[] {underscoreDir(), redirect()}), false, "HostsTomlRedirectsPulls"),
                new Shape("H3d", "the same redirect in _default, which applies to every host",
                        configPath + userPass("configs." + h, current) + userPass("configs.\"" + aliasHost() + "\"", OLD),
                        List.<String[]>of(new String[] {"_default", redirect()}), false, "HostsTomlRedirectsPulls"),
                new Shape("H3b", "hosts.toml sends pulls to the registry under another name, which has no credential",
                        configPath + userPass("configs." + h, current),
                        List.<String[]>of(new String[] {hostDir(), "server = \"http://" + aliasHost() + "\"\n"
                                + "[host.\"http://" + aliasHost() + "\"]\n  capabilities = [\"pull\", \"resolve\"]\n"}),
                        false, "HostsTomlRedirectsPulls"),
                new Shape("header", "an Authorization header (old) in hosts.toml: containerd retries with the"
                        + " configured credential after the 401", configPath + userPass("configs." + h, current),
                        List.<String[]>of(new String[] {hostDir(), "server = \"http://" + registry.host() + "\"\n"
                                + "[host.\"http://" + registry.host() + "\"]\n  capabilities = [\"pull\", \"resolve\"]\n"
                                + "[host.\"http://" + registry.host() + "\".header]\n  Authorization = \"" + basic(OLD)
                                + "\"\n"}), true, null),
                new Shape("headers", "an Authorization header (old) in registry.headers: the same",
                        userPass("configs." + h, current) + "[REG.headers]\n  Authorization = [\"" + basic(OLD) + "\"]\n",
                        List.of(), true, null),
                new Shape("mirror", "a mirror without a credential, with the default fallback to the registry",
                        configPath + userPass("configs." + h, current),
                        List.<String[]>of(new String[] {hostDir(), "[host.\"http://" + aliasHost() + "\"]\n"
                                + "  capabilities = [\"pull\", \"resolve\"]\n"}), true, null),
                new Shape("CA1", "hosts.toml names a ca file, relative to its directory, that does not exist",
                        configPath + userPass("configs." + h, current),
                        List.<String[]>of(new String[] {hostDir(), selfWith("  ca = \"ca.crt\"\n")}), Set.of(),
                        "HostsTomlCertificateMissing", "unable to read CA cert"),
                new Shape("CA2", "hosts.toml names a ca file that exists (Talos writes them so): the pull works",
                        configPath + userPass("configs." + h, current),
                        List.<String[]>of(new String[] {hostDir(), selfWith("  ca = \"ca.crt\"\n")},
                                new String[] {hostDir(), TEST_CA, "ca.crt"}), true, null),
                new Shape("CA3", "hosts.toml names client files, absolute, that do not exist",
                        configPath + userPass("configs." + h, current), List.<String[]>of(new String[] {hostDir(),
                                selfWith("  client = [[\"/etc/cri/client.crt\", \"/etc/cri/client.key\"]]\n")}),
                        Set.of(), "HostsTomlCertificateMissing", "unable to read CERT file"),
                new Shape("CA4", "a missing ca in _default, on a host entry that only pushes: every pull still fails",
                        configPath + userPass("configs." + h, current), List.<String[]>of(new String[] {"_default",
                                "[host.\"https://push.invalid\"]\n  capabilities = [\"push\"]\n  ca = \"/none.crt\"\n"}),
                        Set.of(), "HostsTomlCertificateMissing", "unable to read CA cert"),
                new Shape("L1", "config_path lists two directories; the second holds the redirect: every generation"
                        + " reads the list in order (the CRI pull is the local one whenever registry.configs is set)",
                        "[REG]\n  config_path = \"" + HOSTS + ":" + CERTS_D + "\"\n" + userPass("configs." + h, current)
                        + userPass("configs.\"" + aliasHost() + "\"", OLD),
                        List.<String[]>of(new String[] {CERTS_D + "/" + hostDir(), redirect()}), false,
                        "HostsTomlRedirectsPulls"),
                new Shape("L2", "the same list, with _default in the first directory: it wins over the second's host"
                        + " directory, and the pull works", "[REG]\n  config_path = \"" + HOSTS + ":" + CERTS_D + "\"\n"
                        + userPass("configs." + h, current) + userPass("configs.\"" + aliasHost() + "\"", OLD),
                        List.<String[]>of(new String[] {"_default", "no hosts.toml here\n", "README"},
                                new String[] {CERTS_D + "/" + hostDir(), redirect()}), true, null),
                new Shape("R1", "a redirect whose host names the referrers capability: 2.2 and 2.3 follow it, 1.x"
                        + " and 2.1 do not know the capability and ignore the file", redirectTable(h),
                        List.<String[]>of(new String[] {hostDir(), redirect().replace("\"resolve\"]",
                                "\"resolve\", \"referrers\"]")}), Set.of("1.6", "1.7", "2.1"), "HostsTomlRedirectsPulls",
                        null, Set.of("2.1", "2.2", "2.3")),
                new Shape("R2", "a redirect whose host names a capability no containerd knows: every generation"
                        + " ignores the file and pulls from the host itself", redirectTable(h),
                        List.<String[]>of(new String[] {hostDir(), redirect().replace("\"resolve\"]",
                                "\"resolve\", \"mirror\"]")}), true, null),
                new Shape("KC1", "hosts.toml spells Server (no [host] table): 2.x matches it to server and follows"
                        + " it, 1.x ignores the file", redirectTable(h),
                        List.<String[]>of(new String[] {hostDir(), "Server = \"http://" + aliasHost() + "\"\n"}),
                        Set.of("1.6", "1.7"), null, null, Set.copyOf(GENERATIONS)),
                new Shape("KC2", "hosts.toml spells CA, naming a file that does not exist: go-toml v1 and v2 both"
                        + " match it to ca, and every pull fails", redirectTable(h),
                        List.<String[]>of(new String[] {hostDir(), selfWith("  CA = \"/none.crt\"\n")}), Set.of(),
                        null, "unable to read CA cert", Set.copyOf(GENERATIONS)),
                new Shape("DUP", "a redirect that assigns server twice: go-toml refuses the file, containerd logs it"
                        + " and pulls from the host itself", redirectTable(h), List.<String[]>of(new String[] {hostDir(),
                                "server = \"http://" + aliasHost() + "\"\n" + redirect()}), true, null));
    }

    /** config_path, the current credential for the registry and the old one for its other name. */
    private static String redirectTable(String h) {
        return "[REG]\n  config_path = \"" + HOSTS + "\"\n" + userPass("configs." + h, current)
                + userPass("configs.\"" + aliasHost() + "\"", OLD);
    }

    @TestFactory
    Stream<DynamicNode> eachShapeOnEachGeneration(@TempDir Path tmp) {
        List<DynamicNode> out = new ArrayList<>();
        // -Dcrifresh.pullpath.generations=1.6,2.3 narrows the run (debugging one generation)
        String only = System.getProperty("crifresh.pullpath.generations", "");
        for (String name : GENERATIONS) {
            if (!only.isBlank() && !List.of(only.split(",")).contains(name)) {
                continue;
            }
            ContainerdGeneration generation = ContainerdGeneration.all().stream()
                    .filter(g -> g.name().equals(name)).findFirst().orElse(null);
            if (generation == null) {
                continue; // not a generation this checkout knows (2.2 and 2.3 come with fetch-containerd)
            }
            List<DynamicNode> cases = new ArrayList<>();
            shapes().forEach(s -> cases.add(DynamicTest.dynamicTest(generation + ": " + s.id() + " — " + s.name(),
                    () -> judge(generation, s, tmp.resolve(name + "-" + s.id())))));
            for (String d : List.of(CERTS_D, "/etc/docker/certs.d")) {
                cases.add(DynamicTest.dynamicTest(generation + ": D — no config_path, a redirect in " + d,
                        () -> defaultDirectory(generation, d, tmp.resolve(name + "-D" + d.replace('/', '_')))));
            }
            cases.add(DynamicTest.dynamicTest(generation + ": H5 — hosts.toml rewritten in place, then replaced by"
                    + " mv, while containerd runs", () -> liveHostsToml(generation, tmp.resolve(name + "-H5"))));
            out.add(DynamicContainer.dynamicContainer(generation.toString(), cases));
        }
        return out.stream();
    }

    /** The root config importing {@code cri.toml}, which holds the CRI settings and {@code registryTable}. */
    private static void writeConfig(CriNode node, ContainerdGeneration generation, String registryTable,
                                    List<String[]> hostsFiles) {
        boolean two = generation.two();
        String plugin = two ? IMAGES : GRPC;
        String version = two ? "version = 3\n" : "version = 2\n";
        String base = two
                ? "[" + IMAGES + "]\n  snapshotter = \"native\"\n[plugins.\"io.containerd.cri.v1.runtime\".cni]\n"
                + "  bin_dir = \"/opt/cni/bin\"\n  conf_dir = \"/etc/cni/net.d\"\n"
                : "[" + GRPC + ".containerd]\n  snapshotter = \"native\"\n[" + GRPC + ".cni]\n"
                + "  bin_dir = \"/opt/cni/bin\"\n  conf_dir = \"/etc/cni/net.d\"\n";
        node.write(TalosConfigFiles.CONTAINERD_TOML, version + "imports = [\"" + TalosConfigFiles.CRI_TOML + "\"]\n"
                + (Boolean.getBoolean("crifresh.pullpath.log") ? "[debug]\n  level = \"debug\"\n" : ""), false);
        node.write(TalosConfigFiles.CRI_TOML, version + base + registryTable.replace("REG", plugin + ".registry"), true);
        // The registry's other name, for containerd (chrooted into the node) and its resolver.
        node.write("/etc/hosts", "127.0.0.1 localhost " + ALIAS + "\n", false);
        node.write("/etc/nsswitch.conf", "hosts: files dns\n", false);
        try {
            Files.createDirectories(node.path(HOSTS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String[] f : hostsFiles) {
            String dir = f[0].startsWith("/") ? f[0] : HOSTS + "/" + f[0];
            node.write(dir + "/" + (f.length > 2 ? f[2] : "hosts.toml"), f[1], false);
        }
    }

    private static void judge(ContainerdGeneration generation, Shape shape, Path dir) {
        RealityGate.require(generation);
        CriNode node = new CriNode(dir);
        writeConfig(node, generation, shape.registryTable(), shape.hostsFiles());
        withContainerd(node, generation, containerd -> {
            CriClient.Pull pull = containerd.cri().pull(image);
            AgentView view = AgentView.observe(node, fingerprintKey, CriNode.watchGlobs());
            System.out.println("pull path: " + generation + ": " + shape.id() + " → pull " + pull.summary() + ", agent "
                    + view.summary());
            if (Boolean.getBoolean("crifresh.pullpath.log")) {
                try (Stream<Path> logs = Files.list(node.root())) {
                    for (Path log : logs.filter(l -> l.toString().endsWith(".log")).toList()) {
                        Files.readAllLines(log).stream().filter(l -> l.contains("host") || l.contains("redential"))
                                .forEach(l -> System.out.println("  " + l));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            if (shape.doubtedOn().contains(generation.name())) {
                assertEquals(shape.pullOkOn(generation), pull.ok(), shape.name() + ": " + pull.detail());
                assertEquals("unknown", view.verdict(), shape.name() + ": " + view.message());
            } else if (shape.pullOkOn(generation)) {
                assertTrue(pull.ok(), shape.name() + ": " + pull.detail());
                assertEquals("fresh", view.verdict(), shape.name() + ": " + view.message());
                assertEquals(fingerprint(current), held(view), shape.name() + ": the current credential's fingerprint");
            } else {
                assertTrue(shape.failure() == null ? pull.unauthorized() || pull.noCredential()
                        : !pull.ok() && pull.detail().contains(shape.failure()), shape.name() + ": " + pull.detail()
                        + "\ncontainerd's log:\n" + containerd.logTail());
                assertNeverFreshAndNamed(view, shape.reason(), shape.name());
            }
        });
    }

    /**
     * D: no {@code config_path} (and no {@code mirrors}), a {@code hosts.toml} redirect in {@code directory}, one of
     * the default directories. containerd 2.2 and 2.3 read it (the pull fails), 1.x and 2.1 have no default (the pull
     * works). The agent: fresh on 1.x (Talos pairs it with a version 2 root); on 2.x unknown unless the generation
     * is named 2.1 (then fresh): 2.1 and 2.2 read it differently, and 2.2 and 2.3 read it only when
     * {@code registry.mirrors} is empty too, which the agent does not read.
     */
    private static void defaultDirectory(ContainerdGeneration generation, String directory, Path dir) {
        RealityGate.require(generation);
        CriNode node = new CriNode(dir);
        writeConfig(node, generation, userPass("configs.\"" + registry.host() + "\"", current)
                + userPass("configs.\"" + aliasHost() + "\"", OLD),
                List.<String[]>of(new String[] {directory + "/" + hostDir(), redirect()}));
        boolean reads = generation.name().equals("2.2") || generation.name().equals("2.3");
        withContainerd(node, generation, containerd -> {
            CriClient.Pull pull = containerd.cri().pull(image);
            AgentView view = AgentView.observe(node, fingerprintKey, CriNode.watchGlobs());
            System.out.println("pull path: " + generation + ": D " + directory + " → pull " + pull.summary()
                    + ", agent " + view.summary());
            if (reads) {
                assertTrue(pull.unauthorized(), directory + ": " + pull.detail());
            } else {
                assertTrue(pull.ok(), directory + ": " + pull.detail());
            }
            if (!generation.two()) {
                assertEquals("fresh", view.verdict(), view.message());
                assertEquals(fingerprint(current), held(view));
                return;
            }
            assertEquals("unknown", view.verdict(), view.message());
            AgentView named = AgentView.observe(node, fingerprintKey, CriNode.watchGlobs(), "--containerd-generation",
                    generation.name());
            System.out.println("pull path: " + generation + ": D " + directory + ", --containerd-generation "
                    + generation.name() + " → agent " + named.summary());
            if (reads) {
                assertEquals("unknown", named.verdict(), named.message());
                assertTrue(named.message().contains("registry.mirrors"), named.message());
            } else {
                assertEquals("fresh", named.verdict(), named.message());
                assertEquals(fingerprint(current), held(named));
            }
        });
    }

    /**
     * H5: hosts.toml starts right (the pull works, fresh), is rewritten in place to send pulls to the other
     * name (the pull fails: stale, named), is replaced by {@code mv} with the right one (the pull works again:
     * fresh again — containerd re-reads hosts.toml, no restart, and it is no part of the loaded-config
     * evidence), and is replaced by {@code mv} with the wrong one again (stale again).
     */
    private static void liveHostsToml(ContainerdGeneration generation, Path dir) {
        RealityGate.require(generation);
        CriNode node = new CriNode(dir);
        String right = "server = \"http://" + registry.host() + "\"\n[host.\"http://" + registry.host() + "\"]\n";
        String wrong = redirect();
        writeConfig(node, generation, "[REG]\n  config_path = \"" + HOSTS + "\"\n"
                + userPass("configs.\"" + registry.host() + "\"", current)
                + userPass("configs.\"" + aliasHost() + "\"", OLD), List.<String[]>of(new String[] {hostDir(), right}));
        String hostsToml = HOSTS + "/" + hostDir() + "/hosts.toml";
        withContainerd(node, generation, containerd -> {
            step(node, containerd, "as started", true);
            node.write(hostsToml, wrong, false); // in place: truncate and write
            step(node, containerd, "rewritten in place", false);
            replaceByMv(node, hostsToml, right);
            step(node, containerd, "replaced by mv with the right one", true);
            replaceByMv(node, hostsToml, wrong);
            step(node, containerd, "replaced by mv with the wrong one", false);
        });
    }

    private static void step(CriNode node, RealContainerd containerd, String what, boolean pullOk) {
        CriClient.Pull pull = containerd.cri().pull(image);
        AgentView view = AgentView.observe(node, fingerprintKey, CriNode.watchGlobs());
        System.out.println("pull path: H5 " + what + " → pull " + pull.summary() + ", agent " + view.summary());
        assertEquals(pullOk, pull.ok(), what + ": " + pull.detail());
        if (pullOk) {
            assertEquals("fresh", view.verdict(), what + ": " + view.message());
            assertEquals(fingerprint(current), held(view), what);
        } else {
            assertNeverFreshAndNamed(view, "HostsTomlRedirectsPulls", what);
        }
    }

    private static void replaceByMv(CriNode node, String nodePath, String text) {
        Path target = node.path(nodePath);
        Path staged = target.resolveSibling(".hosts.toml.new");
        try {
            Files.writeString(staged, text);
            Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertNeverFreshAndNamed(AgentView view, String reason, String what) {
        assertEquals("stale", view.verdict(), what + ": " + view.message());
        assertEquals(reason, view.reason(), what + ": " + view.message());
        assertTrue(view.message().contains("a reboot will not fix this"), view.message());
        assertNotEquals(fingerprint(current), held(view), what + ": the fingerprint is what the pull sends, not the"
                + " current credential");
    }

    private static void withContainerd(CriNode node, ContainerdGeneration generation, Consumer<RealContainerd> body) {
        TruthTableTest.settle(Instant.now());
        MachineLock.acquire();
        try {
            CriProcesses.awaitNoneForeign(List.of());
            try (RealContainerd containerd = RealContainerd.start(node, generation)) {
                body.accept(containerd);
            }
        } finally {
            MachineLock.release();
        }
    }

    private static String held(AgentView view) {
        return view.registries().get(RegistryHosts.normalise(registry.host()));
    }

    private static String fingerprint(Credential c) {
        try {
            return CredentialFingerprint.of(Files.readAllBytes(fingerprintKey),
                    new RegistryAuth(registry.host(), c.username(), c.password(), ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
