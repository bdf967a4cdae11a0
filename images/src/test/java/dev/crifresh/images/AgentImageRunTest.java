package dev.crifresh.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.MockApiServer;
import dev.crifresh.reality.CriClient;
import dev.crifresh.reality.CriNode;
import dev.crifresh.reality.Prerequisites;
import dev.crifresh.reality.RealContainerd;
import dev.crifresh.reality.RealRegistry;
import dev.crifresh.sim.cluster.TalosConfigFiles;
import dev.crifresh.sim.scenario.Credential;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent image, pushed to the real registry, pulled by the real containerd's CRI plugin (with the
 * registry credential of Talos's CRI config, as the kubelet has it pull) and run by containerd and runc
 * exactly as the rendered chart's DaemonSet says ({@link ChartAgent}, {@link ChartRun}): uid 0 with every
 * capability dropped, no_new_privs, RuntimeDefault seccomp, a read-only root file system with the /tmp
 * emptyDir, the host's PID namespace, /etc/cri read-only at /host/etc/cri, the key Secrets read-only
 * (0400), the chart's memory and CPU limits.
 *
 * <p>Threat model: this stands on the defended side — it shows the agent reads the evidence it needs
 * (containerd's /proc entries, the 0600 registries part) without any privilege beyond uid 0, so the
 * chart does not have to grant capabilities an attacker in the pod could use.
 */
class AgentImageRunTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NODE = "worker-1";
    private static final Credential V1 = new Credential("deploy-bot", "token-v1");
    private static final Credential V2 = new Credential("deploy-bot", "token-v2");

    @TempDir
    static Path work;

    private static RealRegistry registry;
    private static RealContainerd containerd;
    private static CriNode node;
    private static NodeCtr ctr;
    private static String ref;
    private static Path rootfs;
    private static KubernetesMockServer api;
    private static KubernetesClient client;
    private static ChartRun run;
    private static Path keys;

    @BeforeAll
    static void pullTheImageWithTheRealContainerd() throws Exception {
        BuiltImages images = BuiltImages.get();
        Optional<String> missing = Prerequisites.missing();
        assertTrue(missing.isEmpty(), "the real containerd cannot run here: " + missing.orElse(""));
        Tools.require("nsenter", "ctr");

        long t0 = System.nanoTime();
        registry = RealRegistry.start(work.resolve("registry"), V1);
        ref = registry.host() + "/crifresh/agent:test";
        // Talos renders the CRI config before it starts containerd; the push in between puts seconds
        // between the two, far more than the agent's margin, so the node is fresh
        node = new CriNode(work.resolve("node"));
        node.render(registry.host(), V1);
        images.buildah.run("push", "--tls-verify=false", "--creds", V1.username() + ":" + V1.password(),
                BuiltImages.AGENT, "docker://" + ref);
        containerd = RealContainerd.start(node);
        CriClient.Pull pull = containerd.cri().pull(ref);
        assertTrue(pull.ok(), pull.detail() + "\n" + containerd.logTail());
        ctr = new NodeCtr(containerd);
        rootfs = work.resolve("rootfs");
        ctr.mountImage(ref, rootfs);
        System.out.printf("images: push + containerd start + CRI pull + mount %d ms%n", (System.nanoTime() - t0) / 1_000_000);

        keys = work.resolve("keys");
        Command.run(Duration.ofMinutes(2), Command.of(java(), "-jar",
                BuiltImages.REPO.resolve("coordinator/target/crifresh-coordinator.jar"), "keys", "init", "--out-dir", keys)).check();

        api = MockApiServer.crud();
        client = api.createClient();
        createNode(NODE, Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim());

        ChartAgent agent = ChartAgent.render(Map.of("agent.metricsPort", freePort()));
        run = chartRun(agent, ctr.imageConfig(ref));
    }

    @AfterAll
    static void stop() {
        if (ctr != null && rootfs != null) {
            ctr.unmountImage(rootfs);
        }
        if (containerd != null) {
            containerd.close();
        }
        if (registry != null) {
            registry.close();
        }
        if (client != null) {
            client.close();
        }
        if (api != null) {
            api.destroy();
        }
    }

    /** {@code observe} in the container, with the chart's host options, and on the host give the same evidence. */
    @Test
    void observeInTheContainerSeesWhatTheHostSees() throws Exception {
        JsonNode inside = observeInside("observe-fresh");
        JsonNode outside = observeOutside();
        assertEquals("fresh", inside.path("verdict").asString(), inside.toPrettyString());
        assertEquals(comparable(outside), comparable(inside));
        assertEquals(containerd.pid(), inside.path("containerd").path("pid").asLong(), "the real containerd, seen through hostPID");

        // Talos rewrites the registries part in place (mode 0600) after containerd started: stale
        node.write(TalosConfigFiles.REGISTRIES_PART, node.registriesPart(registry.host(), V2), true);
        node.write(TalosConfigFiles.CRI_TOML, node.criToml(registry.host(), V2), false);
        JsonNode staleInside = observeInside("observe-stale");
        JsonNode staleOutside = observeOutside();
        assertEquals("stale", staleInside.path("verdict").asString(), staleInside.toPrettyString());
        assertEquals(comparable(staleOutside), comparable(staleInside));
        // restore: the other tests expect the node as rendered (containerd still runs the v1 config)
        node.write(TalosConfigFiles.REGISTRIES_PART, node.registriesPart(registry.host(), V1), true);
        node.write(TalosConfigFiles.CRI_TOML, node.criToml(registry.host(), V1), false);
    }

    private static JsonNode observeInside(String id) {
        Command.Result r = ctr.run(Duration.ofMinutes(5), run.ctrArgs(rootfs, id, observeArgs(run.agent().expandedArgs(run.environment())),
                false, null, ctr.hostPidNamespace()).toArray());
        r.check();
        return JSON.readTree(r.stdout());
    }

    private static JsonNode observeOutside() {
        List<String> args = new ArrayList<>(List.of(java(), "-jar", BuiltImages.REPO.resolve("agent/target/crifresh-agent.jar").toString()));
        for (String arg : observeArgs(run.agent().expandedArgs(run.environment()))) {
            args.add(arg.replace("--host-root=/host", "--host-root=" + node.hostRoot())
                    .replace("--fingerprint-key=/etc/crifresh/trust/", "--fingerprint-key=" + keys + "/"));
        }
        return JSON.readTree(Command.run(Duration.ofMinutes(2), args).check().stdout());
    }

    /** The chart's {@code run} arguments that {@code observe} shares (the host options), as {@code observe}. */
    static List<String> observeArgs(List<String> runArgs) {
        List<String> out = new ArrayList<>(List.of("observe"));
        for (String arg : runArgs.subList(1, runArgs.size())) {
            if (arg.matches("--(proc-root|host-root|mode|watch|containerd-match|margin|fingerprint-key)=.*")) {
                out.add(arg);
            }
        }
        return out;
    }

    /** The evidence without what differs between two reads a moment apart (read time, boot-time estimate). */
    private static JsonNode comparable(JsonNode observation) {
        ObjectNode copy = (ObjectNode) observation.deepCopy();
        copy.remove(List.of("observedAt", "bootTime", "bootTimeErrorMs"));
        return copy;
    }

    // --- setup ---

    private static ChartRun chartRun(ChartAgent agent, JsonNode imageConfig) throws IOException {
        Path volumes = work.resolve("volumes");
        Path signing = Files.createDirectories(volumes.resolve("signing-key"));
        Path trust = Files.createDirectories(volumes.resolve("fingerprint-key"));
        Path tmp = Files.createDirectories(volumes.resolve("tmp"));
        for (ChartAgent.Mount m : agent.mounts()) {
            Path dir = m.name().equals("signing-key") ? signing : m.name().equals("fingerprint-key") ? trust : null;
            for (String item : m.secretItems()) {
                Path file = dir.resolve(item);
                Files.copy(keys.resolve(item), file);
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode(m.secretMode())));
            }
        }
        Path kube = Files.createDirectories(work.resolve("kube"));
        Files.writeString(kube.resolve("config"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: %s
                users:
                - name: agent
                  user:
                    token: not-a-secret
                contexts:
                - name: mock
                  context:
                    cluster: mock
                    user: agent
                current-context: mock
                """.formatted(client.getConfiguration().getMasterUrl()));
        return new ChartRun(agent, ImageBuildTest.strings(imageConfig.path("Entrypoint")),
                ImageBuildTest.strings(imageConfig.path("Env")), Map.of("spec.nodeName", NODE),
                Map.of("signing-key", signing, "fingerprint-key", trust, "tmp", tmp),
                Map.of("KUBECONFIG", "/etc/crifresh/kube/config"), List.of(new ChartRun.Mount(kube, "/etc/crifresh/kube")));
    }

    static String mode(int mode) {
        StringBuilder s = new StringBuilder();
        String rwx = "rwx";
        for (int bit = 8; bit >= 0; bit--) {
            s.append((mode & (1 << bit)) != 0 ? rwx.charAt(2 - bit % 3) : '-');
        }
        return s.toString();
    }

    private static void createNode(String name, String bootId) {
        Node n = new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withNewNodeInfo().withBootID(bootId).endNodeInfo().endStatus().build();
        client.nodes().resource(n).create();
        Node created = client.nodes().withName(name).get();
        if (created.getStatus() == null || created.getStatus().getNodeInfo() == null) {
            created.setStatus(n.getStatus());
            client.nodes().resource(created).updateStatus();
        }
    }

    static Optional<NodeCondition> condition(String name) {
        Node n = client.nodes().withName(name).get();
        return n == null || n.getStatus() == null ? Optional.empty()
                : n.getStatus().getConditions().stream().filter(c -> c.getType().equals("ContainerdConfigFresh")).findFirst();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
