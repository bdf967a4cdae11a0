package dev.crifresh.common.registry;

import static dev.crifresh.common.registry.PullCredentials.HostLayout.ONE;
import static dev.crifresh.common.registry.PullCredentials.HostLayout.TWO_ONE;
import static dev.crifresh.common.registry.PullCredentials.HostLayout.TWO_TWO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.ContainerdReading.RegistryTable;
import dev.crifresh.common.registry.PullCredentials.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which credential a pull sends (docs/design.md, "Which credential a pull sends"), table-driven: each row is a
 * registry table, a {@code hosts.toml} tree and what containerd's lookup gives — the credential a pull from
 * each host sends (by password), the problems (credentials no pull sends), or a doubt. The rows AU1, K1, H3 and
 * the mirror and header rows are the shapes of issue 36, which {@code PullPathRealityTest} runs on real
 * containerd with a real pull.
 */
@SuppressWarnings("checkstyle:filelength") // a table of cases
class PullCredentialsTest {
    private static final String H = "127.0.0.1:5000";
    private static final String ALIAS = "registry.alias:5000";
    private static final String HOSTS = "/etc/cri/conf.d/hosts";

    private static RegistryAuth cred(String host, String password) {
        return new RegistryAuth(RegistryHosts.normalise(host), "bot", password, "");
    }

    /**
     * A {@code config_path} tree: directory path → hosts.toml text ("" for a directory without one), and the node
     * paths of the files there are.
     */
    record Tree(Map<String, String> dirs, Set<String> files) implements PullCredentials.HostsFiles {
        static Tree of(String... pairs) {
            return under(HOSTS, pairs);
        }

        /** Directories under another root. */
        static Tree under(String root, String... pairs) {
            Map<String, String> m = new TreeMap<>();
            for (int i = 0; i < pairs.length; i += 2) {
                m.put(root + "/" + pairs[i], pairs[i + 1]);
            }
            return new Tree(m, Set.of());
        }

        Tree and(Tree other) {
            Map<String, String> m = new TreeMap<>(dirs);
            m.putAll(other.dirs);
            Set<String> f = new TreeSet<>(files);
            f.addAll(other.files);
            return new Tree(m, f);
        }

        Tree withFiles(String... paths) {
            Set<String> f = new TreeSet<>(files);
            f.addAll(List.of(paths));
            return new Tree(dirs, f);
        }

        @Override
        public PullCredentials.FileAt file(String nodePath) {
            if (files.contains(nodePath)) {
                return new PullCredentials.RegularFile();
            }
            return dirs.containsKey(nodePath) ? new PullCredentials.NoFile("is a directory")
                    : new PullCredentials.NoFile("does not exist");
        }

        @Override
        public PullCredentials.HostDir at(String nodePath) {
            String text = dirs.get(nodePath);
            return text == null ? new PullCredentials.Missing() : new PullCredentials.Found(text.isEmpty() ? null : text);
        }

        @Override
        public List<String> directories(String nodePath) {
            List<String> out = new ArrayList<>();
            dirs.keySet().stream().filter(d -> d.startsWith(nodePath + "/"))
                    .forEach(d -> out.add(d.substring(nodePath.length() + 1)));
            return out;
        }
    }

    /**
     * @param sent     per normalised host, the password a pull sends
     * @param problems the kinds of the problems, in order; null when the answer is a doubt
     */
    record Row(String name, Map<String, RegistryAuth> configs, Map<String, RegistryAuth> auths, String configPath,
               Tree tree, Map<String, String> sent, List<Kind> problems) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Row row(String name, Map<String, RegistryAuth> configs, Map<String, RegistryAuth> auths,
                           String configPath, Tree tree, Map<String, String> sent, Kind... problems) {
        return new Row(name, configs, auths, configPath, tree, sent, List.of(problems));
    }

    private static Row doubt(String name, Map<String, RegistryAuth> configs, Map<String, RegistryAuth> auths,
                             String configPath, Tree tree) {
        return new Row(name, configs, auths, configPath, tree, Map.of(), null);
    }

    @SuppressWarnings("checkstyle:methodlength") // a table of cases, one row per credential shape
    static Stream<Row> rows() {
        Tree none = Tree.of();
        return Stream.of(
                row("a configs key spelled host:port is sent", Map.of(H, cred(H, "new")), Map.of(), null, none,
                        Map.of(H, "new")),
                row("K1: a configs key spelled with its scheme is never looked up",
                        Map.of("http://" + H, cred(H, "new")), Map.of(), null, none, Map.of(), Kind.KEY_NEVER_MATCHED),
                row("a scheme-spelled key beside the exact key with the same credential is harmless",
                        Map.of("http://" + H, cred(H, "new"), H, cred(H, "new")), Map.of(), null, none, Map.of(H, "new")),
                row("a scheme-spelled key beside the exact key with another credential is a dead credential",
                        Map.of("https://" + H, cred(H, "old"), H, cred(H, "new")), Map.of(), null, none,
                        Map.of(H, "new"), Kind.KEY_NEVER_MATCHED),
                row("a key with a path is never looked up", Map.of(H + "/v2", cred(H, "new")), Map.of(), null, none,
                        Map.of(), Kind.KEY_NEVER_MATCHED),
                row("docker.io: pulls go to registry-1.docker.io, so a docker.io key is never looked up",
                        Map.of("docker.io", cred("docker.io", "new")), Map.of(), null, none, Map.of(),
                        Kind.KEY_NEVER_MATCHED),
                row("docker.io: a registry-1.docker.io key is what a pull from docker.io sends",
                        Map.of("registry-1.docker.io", cred("docker.io", "new")), Map.of(), null, none,
                        Map.of("docker.io", "new")),
                row("AU1: registry.auths with a scheme overrides registry.configs", Map.of(H, cred(H, "new")),
                        Map.of("http://" + H, cred(H, "old")), null, none, Map.of(H, "old"), Kind.AUTHS_OVERRIDE_CONFIGS),
                row("registry.auths with the same credential as configs changes nothing", Map.of(H, cred(H, "new")),
                        Map.of("http://" + H, cred(H, "new")), null, none, Map.of(H, "new")),
                row("registry.auths alone, keyed by a host without a port, is sent", Map.of(),
                        Map.of("ghcr.io", cred("ghcr.io", "new")), null, none, Map.of("ghcr.io", "new")),
                doubt("registry.auths keyed host:port without a scheme: containerd cannot parse it", Map.of(),
                        Map.of(H, cred(H, "new")), null, none),
                doubt("two registry.auths keys that become one configs key with different credentials", Map.of(),
                        Map.of("http://" + H, cred(H, "a"), "https://" + H, cred(H, "b")), null, none),
                row("config_path without any hosts directory: the default host", Map.of(H, cred(H, "new")), Map.of(),
                        HOSTS, none, Map.of(H, "new")),
                row("H3: hosts.toml sends pulls to the registry under another name with another credential",
                        Map.of(H, cred(H, "new"), ALIAS, cred(ALIAS, "old")), Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n"),
                        Map.of(H, "old", ALIAS, "old"), Kind.HOSTS_TOML_REDIRECTS),
                row("H3: hosts.toml sends pulls to a name without a credential",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS,
                        Tree.of(H, "server = \"http://" + ALIAS + "\"\n[host.\"http://" + ALIAS + "\"]\n"
                                + "  capabilities = [\"pull\", \"resolve\"]\n"),
                        Map.of(), Kind.HOSTS_TOML_REDIRECTS),
                row("a redirect whose target holds the same credential is no problem",
                        Map.of(H, cred(H, "new"), ALIAS, cred(ALIAS, "new")), Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n"),
                        Map.of(H, "new", ALIAS, "new")),
                row("a mirror with the default fallback: the registry itself still gets its credential",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "[host.\"http://" + ALIAS + "\"]\n  capabilities = [\"pull\", \"resolve\"]\n"),
                        Map.of(H, "new")),
                row("an Authorization header in hosts.toml changes no credential", Map.of(H, cred(H, "new")), Map.of(),
                        HOSTS, Tree.of("127.0.0.1_5000_", "server = \"http://" + H + "\"\n[header]\n"
                                + "  Authorization = \"Basic b2xkOm9sZA==\"\n"), Map.of(H, "new")),
                row("the _default directory applies to every host", Map.of(H, cred(H, "new")), Map.of(), HOSTS,
                        Tree.of("_default", "server = \"http://" + ALIAS + "\"\n"), Map.of(), Kind.HOSTS_TOML_REDIRECTS),
                row("a host directory without hosts.toml (certificates only): the default host",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS, Tree.of("127.0.0.1_5000_", ""), Map.of(H, "new")),
                row("the host:port directory wins over the host_port_ one only when that one is missing",
                        Map.of(H, cred(H, "new"), ALIAS, cred(ALIAS, "old")), Map.of(), HOSTS,
                        Tree.of(H, "server = \"http://" + ALIAS + "\"\n", "127.0.0.1_5000_", ""),
                        Map.of(H, "new", ALIAS, "old")),
                row("a push-only server is not where pulls go", Map.of(H, cred(H, "new"), ALIAS, cred(ALIAS, "old")),
                        Map.of(), HOSTS, Tree.of(H, "server = \"http://" + H + "\"\ncapabilities = [\"push\"]\n"
                                + "[host.\"http://" + ALIAS + "\"]\n"),
                        Map.of(H, "old", ALIAS, "old"), Kind.HOSTS_TOML_REDIRECTS),
                row("a host directory with no credential anywhere publishes nothing", Map.of(), Map.of(), HOSTS,
                        Tree.of("quay.io", "server = \"https://mirror.local\"\n"), Map.of()),
                row("a host directory sending pulls to a host with a credential publishes it for the directory's host",
                        Map.of("mirror.local", cred("mirror.local", "m")), Map.of(), HOSTS,
                        Tree.of("quay.io", "server = \"https://mirror.local\"\n"),
                        Map.of("quay.io", "m", "mirror.local", "m")),
                doubt("hosts.toml that does not parse: containerd ignores it, the agent does not guess",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS, Tree.of("127.0.0.1_5000_", "server = [\n")),
                doubt("hosts.toml sending pulls to two hosts with different credentials",
                        Map.of(H, cred(H, "new"), ALIAS, cred(ALIAS, "old")), Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "server = \"http://other:5000\"\n[host.\"http://" + ALIAS + "\"]\n")),
                doubt("hosts entries declared other than as [host.\"…\"] tables", Map.of(H, cred(H, "new")), Map.of(),
                        HOSTS, Tree.of("127.0.0.1_5000_", "host = { \"http://" + ALIAS + "\" = {} }\n")),
                doubt("a mirror with pull but not resolve: tags resolve elsewhere than blobs are fetched",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "[host.\"http://" + ALIAS + "\"]\n  capabilities = [\"pull\"]\n")),
                doubt("a mirror with resolve but not pull", Map.of(H, cred(H, "new")), Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "[host.\"http://" + ALIAS + "\"]\n  capabilities = [\"resolve\"]\n")),
                doubt("registry.auths whose port is not a number: containerd refuses the config", Map.of(),
                        Map.of("http://h:abc", cred("h", "new")), null, none),
                doubt("registry.auths with a % escape", Map.of(), Map.of("https://h/%zz", cred("h", "new")), null, none),
                doubt("hosts.toml server whose port is not a number", Map.of(H, cred(H, "new")), Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "x:port\"\n")),
                row("a config_path list is read in order: a redirect in the second directory applies",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS + ":" + CERTS_D,
                        Tree.under(CERTS_D, H, "server = \"http://" + ALIAS + "\"\n"), Map.of(),
                        Kind.HOSTS_TOML_REDIRECTS),
                row("a config_path list: the first directory's _default wins over the second's host directory",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS + ":" + CERTS_D,
                        Tree.of("_default", "").and(Tree.under(CERTS_D, H, "server = \"http://" + ALIAS + "\"\n")),
                        Map.of(H, "new")),
                doubt("a config_path list with an empty entry (containerd's working directory)",
                        Map.of(H, cred(H, "new")), Map.of(), HOSTS + "::" + CERTS_D, none),
                doubt("a relative config_path entry", Map.of(H, cred(H, "new")), Map.of(), HOSTS + ":certs.d", none));
    }

    private static final String CERTS_D = "/etc/containerd/certs.d";
    private static final String HOST_DIR = HOSTS + "/127.0.0.1_5000_";

    /** A hosts.toml sending pulls to the registry itself, with {@code extra} in its [host] table. */
    private static Tree selfWith(String extra) {
        return Tree.of("127.0.0.1_5000_", "server = \"http://" + H + "\"\n[host.\"http://" + H + "\"]\n" + extra);
    }

    /** Rows on a certificate file named in hosts.toml: every pull fails at its TLS setup when one is missing. */
    static Stream<Row> certificateRows() {
        Map<String, RegistryAuth> configs = Map.of(H, cred(H, "new"));
        return Stream.of(
                row("a relative ca that exists, beside hosts.toml", configs, Map.of(), HOSTS,
                        selfWith("  ca = \"ca.crt\"\n").withFiles(HOST_DIR + "/ca.crt"), Map.of(H, "new")),
                row("a relative ca that does not exist", configs, Map.of(), HOSTS, selfWith("  ca = \"ca.crt\"\n"),
                        Map.of(), Kind.HOSTS_CERTIFICATE_MISSING),
                row("a relative ca with .. is joined and cleaned lexically", configs, Map.of(), HOSTS,
                        selfWith("  ca = \"../certs/ca.crt\"\n").withFiles(HOSTS + "/certs/ca.crt"), Map.of(H, "new")),
                row("an absolute ca that does not exist", configs, Map.of(), HOSTS,
                        selfWith("  ca = [\"/etc/ssl/a.crt\", \"/etc/ssl/b.crt\"]\n").withFiles("/etc/ssl/a.crt"),
                        Map.of(), Kind.HOSTS_CERTIFICATE_MISSING),
                row("an empty ca names the host directory itself, which is no file", configs, Map.of(), HOSTS,
                        selfWith("  ca = \"\"\n"), Map.of(),
                        Kind.HOSTS_CERTIFICATE_MISSING),
                row("a client pair whose key does not exist", configs, Map.of(), HOSTS,
                        selfWith("  client = [[\"c.crt\", \"c.key\"]]\n").withFiles(HOST_DIR + "/c.crt"), Map.of(),
                        Kind.HOSTS_CERTIFICATE_MISSING),
                row("a client file that exists (key and certificate in one)", configs, Map.of(), HOSTS,
                        selfWith("  client = \"/etc/certs/c.pem\"\n").withFiles("/etc/certs/c.pem"), Map.of(H, "new")),
                row("a missing ca on a push-only host still fails every pull", configs, Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "[host.\"https://push.local\"]\n  capabilities = [\"push\"]\n"
                                + "  ca = \"/nowhere.crt\"\n"), Map.of(), Kind.HOSTS_CERTIFICATE_MISSING),
                row("a missing ca at the top level", configs, Map.of(), HOSTS,
                        Tree.of("127.0.0.1_5000_", "server = \"http://" + H + "\"\nca = \"/nowhere.crt\"\n"), Map.of(),
                        Kind.HOSTS_CERTIFICATE_MISSING),
                row("a missing ca in the _default directory", configs, Map.of(), HOSTS,
                        Tree.of("_default", "ca = \"/nowhere.crt\"\n"), Map.of(), Kind.HOSTS_CERTIFICATE_MISSING),
                row("a missing ca for a host without a credential is not this agent's business", Map.of(), Map.of(),
                        HOSTS, Tree.of("quay.io", "ca = \"/nowhere.crt\"\n"), Map.of()),
                doubt("a ca that is neither a file name nor a list of them", configs, Map.of(), HOSTS,
                        selfWith("  ca = 1\n")),
                doubt("a ca written as a date (go-toml does not read it as a string)", configs, Map.of(), HOSTS,
                        selfWith("  ca = 1979-05-27\n")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("certificateRows")
    void aMissingCertificateFailsEveryPull(Row row) {
        eachShapeSendsWhatContainerdsLookupSends(row);
    }

    /**
     * One row per layout set: what each generation reads, or a doubt where the generations that may run read
     * differently.
     *
     * @param sent the password a pull from {@link #H} sends under these layouts, or null for a doubt
     */
    record LayoutRow(String name, String configPath, Tree tree, List<PullCredentials.HostLayout> layouts, String sent) {
        @Override
        public String toString() {
            return name + " " + layouts;
        }
    }

    static Stream<LayoutRow> layoutRows() {
        String redirect = "server = \"http://" + ALIAS + "\"\n[host.\"http://" + ALIAS + "\"]\n";
        Tree inCertsD = Tree.under(CERTS_D, "127.0.0.1_5000_", redirect);
        Tree inDockerCertsD = Tree.under("/etc/docker/certs.d", H, redirect);
        Tree referrers = Tree.of("127.0.0.1_5000_", redirect.replace("]\n", "]\n  capabilities = [\"pull\","
                + " \"resolve\", \"referrers\"]\n"));
        Tree unknownCapability = Tree.of("127.0.0.1_5000_", redirect.replace("]\n", "]\n  capabilities = [\"pull\","
                + " \"resolve\", \"mirror\"]\n"));
        List<PullCredentials.HostLayout> one = List.of(ONE);
        List<PullCredentials.HostLayout> twoOne = List.of(TWO_ONE);
        List<PullCredentials.HostLayout> twoTwo = List.of(TWO_TWO);
        return Stream.of(
                new LayoutRow("no config_path: 1.x reads no default directory", null, inCertsD, one, "new"),
                new LayoutRow("no config_path: 2.0 and 2.1 read no default directory", null, inCertsD, twoOne, "new"),
                new LayoutRow("no config_path: 2.2 and 2.3 read /etc/containerd/certs.d unless registry.mirrors is"
                        + " set, which the agent does not read", null, inCertsD, twoTwo, null),
                new LayoutRow("the same in /etc/docker/certs.d", "", inDockerCertsD, twoTwo, null),
                new LayoutRow("no config_path, the default directories hold nothing for the host: no doubt", null,
                        Tree.under(CERTS_D, "quay.io", "server = \"https://mirror.local\"\n"), twoTwo, "new"),
                new LayoutRow("no config_path and a redirect in a default directory, any generation", null, inCertsD,
                        PullCredentials.HostLayout.ALL, null),
                new LayoutRow("a referrers capability: 1.x ignores the file", HOSTS, referrers, one, "new"),
                new LayoutRow("a referrers capability: 2.1 ignores the file", HOSTS, referrers, twoOne, "new"),
                new LayoutRow("a referrers capability: 2.2 reads the file", HOSTS, referrers, twoTwo, "old"),
                new LayoutRow("a referrers capability, 2.x not known exactly", HOSTS, referrers,
                        PullCredentials.HostLayout.TWO, null),
                new LayoutRow("a capability no containerd knows: every generation ignores the file", HOSTS,
                        unknownCapability, PullCredentials.HostLayout.ALL, "new"),
                new LayoutRow("a key spelled in another case than containerd's field (Server)", HOSTS,
                        Tree.of("127.0.0.1_5000_", "Server = \"http://" + ALIAS + "\"\n"), twoTwo, null),
                new LayoutRow("a host table key spelled in another case (CA)", HOSTS,
                        Tree.of("127.0.0.1_5000_", redirect + "  CA = \"/x.crt\"\n"), one, null),
                new LayoutRow("a key whose Go lower case is a field (the Kelvin sign in skip_verify's place)", HOSTS,
                        Tree.of("127.0.0.1_5000_", redirect + "  \"s\u212Aip_verify\" = true\n"), twoTwo, null),
                new LayoutRow("a [HOST.\"…\"] table", HOSTS, Tree.of("127.0.0.1_5000_", "[HOST.\"http://" + ALIAS
                        + "\"]\n"), twoTwo, null),
                new LayoutRow("a key assigned twice: go-toml refuses the file and containerd pulls from the host",
                        HOSTS, Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n" + redirect),
                        PullCredentials.HostLayout.ALL, "new"),
                new LayoutRow("a key assigned twice in a [host] table, one quoted", HOSTS, Tree.of("127.0.0.1_5000_",
                        redirect + "  capabilities = [\"pull\", \"resolve\"]\n  \"capabilities\" = []\n"),
                        PullCredentials.HostLayout.ALL, "new"),
                new LayoutRow("a table defined twice stays a doubt (not the plain duplicate the agent is sure of)",
                        HOSTS, Tree.of("127.0.0.1_5000_", redirect + "[host.\"http://" + ALIAS + "\"]\n"),
                        PullCredentials.HostLayout.ALL, null),
                new LayoutRow("a duplicate in a file with a multi-line string stays a doubt", HOSTS,
                        Tree.of("127.0.0.1_5000_", redirect + "  x = \"\"\"\na\"\"\"\n  x = 1\n"),
                        PullCredentials.HostLayout.ALL, null),
                new LayoutRow("keys that are no field of containerd's in any case are ignored, as containerd does",
                        HOSTS, Tree.of("127.0.0.1_5000_", redirect + "  mirror = true\nservers = 1\n"), twoTwo, "old"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layoutRows")
    void eachGenerationReadsTheTreeItsOwnWay(LayoutRow row) {
        RegistryTable table = new RegistryTable(Map.of(H, cred(H, "new"), ALIAS, cred(ALIAS, "old")), Map.of(),
                row.configPath());
        PullCredentials.Result result = PullCredentials.resolve(table, row.tree(), row.layouts());
        if (row.sent() == null) {
            PullCredentials.Failed failed = assertInstanceOf(PullCredentials.Failed.class, result, row.toString());
            assertFalse(failed.message().contains("new") || failed.message().contains("old"), failed.message());
            return;
        }
        PullCredentials.Resolved resolved = assertInstanceOf(PullCredentials.Resolved.class, result,
                () -> row + ": " + result);
        assertEquals(row.sent(), resolved.sent().get(H).password(), row.toString());
    }

    @Test
    void theDefaultDirectoriesAreConsultedSoTheyAreWatched() {
        PullCredentials.Result r = PullCredentials.resolve(new RegistryTable(Map.of(H, cred(H, "new")), Map.of(), null),
                Tree.of(), PullCredentials.HostLayout.ALL);
        List<String> consulted = assertInstanceOf(PullCredentials.Resolved.class, r).consulted();
        assertTrue(consulted.containsAll(List.of(CERTS_D, CERTS_D + "/127.0.0.1_5000_", "/etc/docker/certs.d",
                "/etc/docker/certs.d/_default")), consulted.toString());
    }

    @Test
    void aDoubtBetweenGenerationsNamesThemAndTheHost() {
        Tree inCertsD = Tree.under(CERTS_D, "127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n");
        PullCredentials.Failed f = assertInstanceOf(PullCredentials.Failed.class, PullCredentials.resolve(
                new RegistryTable(Map.of(H, cred(H, "new")), Map.of(), null), inCertsD, List.of(TWO_TWO)));
        assertEquals("without registry.config_path, containerd 2.2 and 2.3 read the hosts.toml under"
                + " /etc/containerd/certs.d and /etc/docker/certs.d only when registry.mirrors is empty too, which the"
                + " agent does not read, and what is there changes the credential pulls from " + H + " send",
                f.message());
        PullCredentials.Failed g = assertInstanceOf(PullCredentials.Failed.class, PullCredentials.resolve(
                new RegistryTable(Map.of(H, cred(H, "new")), Map.of(), HOSTS),
                Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n"), PullCredentials.HostLayout.ALL));
        assertEquals("containerd 1.x and containerd 2.0 and 2.1 would send different credentials for pulls from "
                + H + ", reading the hosts.toml directories differently, and which one runs is not known from the"
                + " files (--containerd-generation names the generation) (containerd 1.x ignores " + HOSTS
                + "/127.0.0.1_5000_/hosts.toml: it has no [host] table)",
                g.message());
    }

    @Test
    void aMissingCertificateIsNamedWithItsFileAndNeverSent() {
        var r = (PullCredentials.Resolved) PullCredentials.resolve(new RegistryTable(Map.of(H, cred(H, "new")), Map.of(),
                HOSTS), selfWith("  ca = \"ca.crt\"\n"), PullCredentials.HostLayout.ALL);
        assertEquals(List.of(new PullCredentials.Problem(Kind.HOSTS_CERTIFICATE_MISSING, H, HOST_DIR
                + "/hosts.toml names ca '" + HOST_DIR + "/ca.crt' for host 'http://" + H + "', which does not exist:"
                + " every pull from " + H + " fails when containerd sets up its TLS: the credential of registry.configs '"
                + H + "' is never sent")), r.problems());
        assertTrue(r.sent().isEmpty(), r.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachShapeSendsWhatContainerdsLookupSends(Row row) {
        PullCredentials.Result result = PullCredentials.resolve(
                new RegistryTable(row.configs(), row.auths(), row.configPath()), row.tree());
        if (row.problems() == null) {
            PullCredentials.Failed failed = assertInstanceOf(PullCredentials.Failed.class, result, row.name());
            assertFalse(failed.message().contains("new") || failed.message().contains("old"), failed.message());
            return;
        }
        PullCredentials.Resolved resolved = assertInstanceOf(PullCredentials.Resolved.class, result,
                () -> row.name() + ": " + result);
        Map<String, String> passwords = new TreeMap<>();
        resolved.sent().forEach((h, a) -> passwords.put(h, a.password()));
        assertEquals(new TreeMap<>(row.sent()), passwords, row.name());
        assertEquals(row.problems(), resolved.problems().stream().map(PullCredentials.Problem::kind).toList(),
                () -> row.name() + ": " + resolved.problems());
        for (PullCredentials.Problem p : resolved.problems()) {
            assertFalse(p.detail().contains("bot") || p.detail().contains("new") || p.detail().contains("old"),
                    "a problem never quotes a credential: " + p.detail());
        }
    }

    @Test
    void theProblemsNameTheKeyAndTheHostAPullGoesTo() {
        var k1 = (PullCredentials.Resolved) PullCredentials.resolve(
                new RegistryTable(Map.of("http://" + H, cred(H, "x")), Map.of(), null), Tree.of());
        assertTrue(k1.problems().get(0).detail().contains("registry.configs 'http://" + H + "'"), k1.toString());
        assertTrue(k1.problems().get(0).detail().contains("looks up '" + H + "'"), k1.toString());
        var h3 = (PullCredentials.Resolved) PullCredentials.resolve(new RegistryTable(Map.of(H, cred(H, "x")),
                Map.of(), HOSTS), Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n"));
        assertTrue(h3.problems().get(0).detail().startsWith(HOSTS + "/127.0.0.1_5000_/hosts.toml sends pulls from "
                + H + " to " + ALIAS), h3.toString());
        assertTrue(h3.consulted().containsAll(List.of(HOSTS, HOSTS + "/127.0.0.1_5000_")), h3.consulted().toString());
    }

    @Test
    void containerd1xIgnoresAHostsTomlWithoutHostTablesAnd2xReadsIt() {
        RegistryTable table = new RegistryTable(Map.of(H, cred(H, "new"), ALIAS, cred(ALIAS, "old")), Map.of(), HOSTS);
        Tree serverOnly = Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n");
        var one = (PullCredentials.Resolved) PullCredentials.resolve(table, serverOnly, List.of(ONE));
        assertEquals("new", one.sent().get(H).password());
        assertTrue(one.problems().isEmpty(), one.problems().toString());
        var two = (PullCredentials.Resolved) PullCredentials.resolve(table, serverOnly, List.of(TWO_ONE, TWO_TWO));
        assertEquals("old", two.sent().get(H).password());
        assertInstanceOf(PullCredentials.Failed.class, PullCredentials.resolve(table, serverOnly,
                PullCredentials.HostLayout.ALL));
        Tree withHost = Tree.of("127.0.0.1_5000_", "server = \"http://" + ALIAS + "\"\n[host.\"http://" + ALIAS + "\"]\n");
        var both = (PullCredentials.Resolved) PullCredentials.resolve(table, withHost, PullCredentials.HostLayout.ALL);
        assertEquals("old", both.sent().get(H).password());
    }

    @Test
    void userInfoInAKeyIsNeverShown() {
        var r = (PullCredentials.Resolved) PullCredentials.resolve(new RegistryTable(
                Map.of("https://bot:s3cret@" + H, cred(H, "x")), Map.of(), null), Tree.of());
        assertFalse(r.problems().get(0).detail().contains("s3cret"), r.problems().toString());
    }

    @Test
    void aConfigPathThatCannotBeListedIsADoubt() {
        PullCredentials.HostsFiles unlistable = new PullCredentials.HostsFiles() {
            @Override
            public PullCredentials.HostDir at(String nodePath) {
                return new PullCredentials.Missing();
            }

            @Override
            public List<String> directories(String nodePath) {
                throw new UncheckedIOException(new IOException(nodePath + ": permission denied"));
            }

            @Override
            public PullCredentials.FileAt file(String nodePath) {
                return new PullCredentials.RegularFile();
            }
        };
        PullCredentials.Result r = PullCredentials.resolve(new RegistryTable(Map.of(H, cred(H, "new")), Map.of(), HOSTS),
                unlistable);
        PullCredentials.Failed failed = assertInstanceOf(PullCredentials.Failed.class, r);
        assertEquals("registry.config_path cannot be listed (" + HOSTS + ": permission denied)", failed.message());
    }

    @Test
    void theAuthsKeyIsGosUrlParse() throws Exception {
        assertEquals(H, GoUrls.authsKey("http://" + H));
        assertEquals(H, GoUrls.authsKey("https://u:p@" + H + "/v2/"));
        assertEquals("ghcr.io", GoUrls.authsKey("ghcr.io"));
        assertEquals("", GoUrls.authsKey("myhost:5000")); // a scheme "myhost" with an opaque part
        assertEquals(List.of("h_5000_", "h:5000", "_default"), PullCredentials.hostPaths("h:5000"));
        assertEquals(List.of("ghcr.io", "_default"), PullCredentials.hostPaths("ghcr.io"));
        assertEquals(ALIAS, GoUrls.serverHost("x", ALIAS));
        assertEquals(ALIAS, GoUrls.serverHost("x", "http://" + ALIAS + "/v2"));
    }
}
