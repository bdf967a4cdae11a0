package dev.crifresh.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.CrudApiServer;
import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.reality.CriClient;
import dev.crifresh.reality.ContainerdGeneration;
import dev.crifresh.reality.CriNode;
import dev.crifresh.reality.Prerequisites;
import dev.crifresh.reality.RealContainerd;
import dev.crifresh.reality.RealRegistry;
import dev.crifresh.sim.node.TalosConfigFiles;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The images run for real. The agent image, pushed to the real registry, pulled by the real containerd's CRI plugin (with the
 * registry credential of Talos's CRI config, as the kubelet has it pull) and run by containerd and runc
 * exactly as the rendered chart's DaemonSet says ({@link ChartAgent}, {@link ChartRun}): uid 0 with every
 * capability dropped, no_new_privs, RuntimeDefault seccomp, a read-only root file system with the /tmp
 * emptyDir, the host's PID namespace, /etc/cri read-only at /host/etc/cri, the key Secrets read-only
 * (0400), the chart's memory and CPU limits. On the oldest and the newest containerd generation
 * ({@link ContainerdGeneration}: Debian's 1.6 with Talos ≤ 1.8's layout, and 2.3 with Talos 1.14's, each with its own
 * {@code ctr}), one registry and one push for both; a generation that cannot be had is skipped with one line (a
 * failure on CI).
 *
 * The coordinator image, pulled the same way, runs {@code plan} (as its own uid 65532) against
 * {@code crifresh-sim serve}.
 *
 * <p>Threat model: this stands on the defended side — it shows the agent reads the evidence it needs
 * (containerd's /proc entries, the 0600 registries part) without any privilege beyond uid 0, so the
 * chart does not have to grant capabilities an attacker in the pod could use.
 */
@SuppressWarnings("checkstyle:filelength") // its @BeforeAll pushes the built images once for every nested run
class ImageRunTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NODE = "worker-1";
    private static final Credential V1 = new Credential("deploy-bot", "token-v1");
    private static final Credential V2 = new Credential("deploy-bot", "token-v2");

    // not @TempDir: JUnit warns about every symlink of the unpacked image as it deletes; rm -rf does not
    private static Path work;

    private static RealRegistry registry;
    private static RealContainerd containerd;
    private static CriNode node;
    private static NodeCtr ctr;
    private static String ref;
    private static String coordinatorRef;
    private static Path rootfs;
    private static Path nodeWork;
    private static KubernetesMockServer api;
    private static KubernetesClient client;
    private static ChartRun run;
    /** The same with the opt-in runtime-status proof: containerd's CRI socket mounted read-only. */
    private static ChartRun runWithCriSocket;
    private static Path keys;

    private static ContainerdGeneration generation;

    @BeforeAll
    static void pushTheImages() throws Exception {
        work = Files.createTempDirectory("crifresh-images-run-");
        BuiltImages images = BuiltImages.get();
        Optional<String> missing = Prerequisites.missing();
        assertTrue(missing.isEmpty(), "the real containerd cannot run here: " + missing.orElse(""));
        Tools.require("nsenter", "ctr");

        long t0 = System.nanoTime();
        registry = RealRegistry.start(work.resolve("registry"), V1);
        ref = registry.host() + "/crifresh/agent:test";
        images.buildah.run("push", "--tls-verify=false", "--creds", V1.username() + ":" + V1.password(),
                BuiltImages.AGENT, "docker://" + ref);
        coordinatorRef = registry.host() + "/crifresh/coordinator:test";
        images.buildah.run("push", "--tls-verify=false", "--creds", V1.username() + ":" + V1.password(),
                BuiltImages.COORDINATOR, "docker://" + coordinatorRef);
        System.out.printf("images: registry + push %d ms%n", (System.nanoTime() - t0) / 1_000_000);

        keys = work.resolve("keys");
        Command.run(Duration.ofMinutes(2), Command.of(java(), "-jar",
                BuiltImages.REPO.resolve("coordinator/target/crifresh-coordinator.jar"), "keys", "init", "--out-dir", keys)).check();

        api = CrudApiServer.crud();
        client = api.createClient();
    }

    /**
     * Starts {@code name}'s containerd on a node of its own with the layout Talos gives it, pulls both images
     * through its CRI (with the credential of Talos's CRI config) and renders the chart's runs against it.
     */
    static void startOn(String name) throws Exception {
        generation = ContainerdGeneration.named(name);
        if (generation.missing().isPresent()) {
            String why = "images run skipped on " + generation + ": " + generation.missing().get();
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                org.junit.jupiter.api.Assertions.fail(why);
            }
            System.out.println(why);
            org.junit.jupiter.api.Assumptions.abort(why);
        }
        long t0 = System.nanoTime();
        node = new CriNode(work.resolve("node-" + name), generation.layout());
        // as on a node, /etc/hosts and /etc/resolv.conf, which runc binds into containers sharing the host
        // network (containerd runs chrooted into the node's tree); written before containerd starts, as the
        // agent counts a change anywhere on the way to /etc/cri
        for (String f : List.of("/etc/hosts", "/etc/resolv.conf")) {
            Files.createDirectories(node.path(f).getParent());
            if (!Files.exists(node.path(f))) {
                Files.copy(Path.of(f), node.path(f));
            }
        }
        node.render(registry.host(), V1);
        // Talos renders the CRI config before it starts containerd: well beyond the agent's margin before it
        Instant rendered = Instant.now();
        Poll.until(Duration.ofSeconds(5), "500 ms after the render", () -> Instant.now().isAfter(rendered.plusMillis(500)));
        containerd = RealContainerd.start(node, generation);
        for (String image : List.of(ref, coordinatorRef)) {
            CriClient.Pull pull = containerd.cri().pull(image);
            assertTrue(pull.ok(), image + ": " + pull.detail() + "\n" + containerd.logTail());
        }
        ctr = new NodeCtr(containerd, generation.system() ? "ctr" : RealContainerd.GENERATION_BIN + "/ctr");
        // containerd runs chrooted into the node's tree: everything it is given lives there
        nodeWork = Files.createDirectories(node.hostRoot().resolve("var/lib/crifresh-images"));
        rootfs = ctr.nodePath(nodeWork.resolve("rootfs"));
        ctr.mountImage(ref, rootfs);
        System.out.printf("images on %s: containerd start + CRI pull + mount %d ms%n", generation,
                (System.nanoTime() - t0) / 1_000_000);

        // a Node of its own per generation: no condition left from the previous one
        client.nodes().withName(NODE).delete();
        Poll.until(Duration.ofSeconds(30), "Node " + NODE + " deleted", () -> client.nodes().withName(NODE).get() == null);
        createNode(NODE, Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim());

        int port = freePort();
        run = chartRun(ChartAgent.render(Map.of("agent.metricsPort", port)), ctr.imageConfig(ref));
        runWithCriSocket = chartRun(ChartAgent.render(Map.of("agent.metricsPort", port,
                "agent.criSocket", RealContainerd.TALOS_ARGS.get(1))), ctr.imageConfig(ref));

        // The agent's first container start makes runc create the chart's mount targets in the container's
        // root (/host/etc for the /etc/cri volume among them), after containerd started: a pod on a node gets
        // them at every start. They are the container's, not the node's, so the agent stamps only what lies at
        // or below its own mounts of the node (OwnMounts): the first start of the agent on a node whose
        // containerd loaded the current config is fresh, not stale from its own mount targets.
        JsonNode first = observeInside("first-start");
        assertEquals("fresh", first.path("verdict").asString(), first.toPrettyString());
    }

    /** Stops the generation's containerd and removes what it left in the node's tree. */
    static void stopGeneration() {
        if (ctr != null && rootfs != null) {
            ctr.unmountImage(rootfs);
        }
        if (containerd != null) {
            containerd.close();
        }
        if (nodeWork != null) {
            Command.run(Duration.ofMinutes(2), Command.of("rm", "-rf", "--one-file-system", nodeWork));
        }
        ctr = null;
        rootfs = null;
        containerd = null;
        nodeWork = null;
    }

    @AfterAll
    static void stop() {
        stopGeneration();
        if (registry != null) {
            registry.close();
        }
        if (client != null) {
            client.close();
        }
        if (api != null) {
            api.destroy();
        }
        if (work != null) {
            // containerd's mounts live in its private namespace: nothing is mounted here in this one
            Command.run(Duration.ofMinutes(5), Command.of("rm", "-rf", "--one-file-system", work));
        }
    }

    @Nested
    @DisplayName("containerd 1.6 (Debian 12's), Talos <= 1.8 layout")
    class Containerd16 extends Runs {
        @BeforeAll
        static void start() throws Exception {
            startOn("1.6");
        }

        @AfterAll
        static void stopIt() {
            stopGeneration();
        }

            /**
             * The coordinator image's {@code plan} against the simulated cluster classifies every node as the
             * coordinator jar does outside the image, and finds the talosctl the image ships on its PATH.
             */
            @Test
            @Order(3)
            void theCoordinatorImagePlansAgainstTheSimulatedCluster() throws Exception {
                Path simDir = Files.createDirectories(work.resolve("sim"));
                Process serve = new ProcessBuilder(java(), "-jar", BuiltImages.REPO.resolve("sim/target/crifresh-sim.jar").toString(), "serve")
                        .directory(simDir.toFile()).redirectOutput(simDir.resolve("serve.out").toFile())
                        .redirectError(simDir.resolve("serve.err").toFile()).start();
                try {
                    Poll.until(Duration.ofMinutes(3), "crifresh-sim serve to be ready",
                            () -> !serve.isAlive() || read(simDir.resolve("serve.out")).contains("Serving until Ctrl-C."));
                    assertTrue(serve.isAlive(), read(simDir.resolve("serve.out")) + read(simDir.resolve("serve.err")));
                    Path files = simDir.resolve("crifresh-sim");
                    // the chart mounts the trust Secret 0440 for the pod's fsGroup; the image runs as 65532
                    Path mounted = Files.createDirectories(nodeWork.resolve("coordinator-files"));
                    for (String f : List.of("kubeconfig", "credential.json", "trust/jwks.json", "trust/fingerprint.key")) {
                        Path to = mounted.resolve(f);
                        Files.createDirectories(to.getParent());
                        Files.copy(files.resolve(f), to);
                        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("r--r-----"));
                        Files.setAttribute(to, "unix:gid", 65532);
                    }
                    List<String> planArgs = List.of("plan", "--kubeconfig", "/work/kubeconfig", "--trust-bundle", "/work/trust",
                            "--credential-file", "/work/credential.json");
                    JsonNode config = ctr.imageConfig(coordinatorRef);
                    assertEquals("65532:65532", config.path("User").asString());
                    List<Object> ctrArgs = new ArrayList<>(List.of("run", "--rm", "--snapshotter", "native", "--read-only", "--net-host",
                            "--mount", "type=bind,src=" + ctr.nodePath(mounted) + ",dst=/work,options=rbind:ro",
                            "--mount", "type=tmpfs,src=tmpfs,dst=/tmp,options=mode=1777", coordinatorRef, "coordinator-plan"));
                    // ctr replaces ENTRYPOINT and CMD by the arguments given: the image's ENTRYPOINT, then plan's
                    ctrArgs.addAll(ImageBuildTest.strings(config.path("Entrypoint")));
                    ctrArgs.addAll(planArgs);
                    Command.Result inside = ctr.run(Duration.ofMinutes(5), ctrArgs.toArray());
                    List<String> outsideArgs = new ArrayList<>(List.of(java(), "-jar",
                            BuiltImages.REPO.resolve("coordinator/target/crifresh-coordinator.jar").toString()));
                    planArgs.forEach(a -> outsideArgs.add(a.replace("/work/", mounted + "/")));
                    Command.Result outside = Command.run(Duration.ofMinutes(5), outsideArgs);
                    String out = inside.stdout() + inside.stderr();
                    assertEquals(outside.exit(), inside.exit(), out);
                    assertEquals(classification(outside.stdout()), classification(inside.stdout()), out);
                    assertTrue(inside.stdout().contains("rollout order: worker-a, worker-b, worker-c, cp-1"), out);
                    // outside, no talosctl is installed; inside, the image's /usr/local/bin/talosctl (the stand-in) runs
                    assertTrue(outside.stdout().contains("cannot start talosctl"), outside.stdout());
                    assertTrue(!inside.stdout().contains("cannot start talosctl"), out);
                } finally {
                    serve.destroy();
                    serve.waitFor();
                }
            }

            /**
             * The arm64 agent image (Arm64ImageTest's cross-build), pulled by the real containerd for linux/arm64 and
             * run with the chart's settings under Debian's qemu-aarch64 (binfmt_misc, for this test only): its
             * {@code observe} reports the same evidence as the host's, so the aarch64 JRE and the jar work together.
             */
            @Test
            @Order(4)
            void theArm64AgentImageObservesUnderQemuWhatTheHostSees() throws Exception {
                // built before qemu is registered: the cross-build must not lean on emulation
                BuiltImages images = BuiltImages.get().withArm64();
                try (QemuAarch64 qemu = QemuAarch64.registerOrSkip(BuiltImages.REPO)) {
                    System.out.println("images: arm64 observe under " + qemu.description);
                    String armRef = registry.host() + "/crifresh/agent:test-arm64";
                    images.buildah.run("push", "--tls-verify=false", "--creds", V1.username() + ":" + V1.password(),
                            BuiltImages.AGENT_ARM64, "docker://" + armRef);
                    ctr.check("images", "pull", "--plain-http", "--platform", "linux/arm64", "--snapshotter", "native",
                            "--user", V1.username() + ":" + V1.password(), armRef);
                    Path armRootfs = ctr.nodePath(nodeWork.resolve("rootfs-arm64"));
                    ctr.mountImage(armRef, armRootfs);
                    try {
                        // qemu-user's translated code and its own heap are charged to the container's memory cgroup:
                        // under the chart's 128Mi the emulated JVM was OOM-killed (exit 137) on a loaded machine. The
                        // limit is raised for the emulation only; the native runs above keep the chart's.
                        ChartRun armRun = chartRun(ChartAgent.render(Map.of("agent.metricsPort", run.agent().metricsPort(),
                                "resources.limits.memory", "512Mi")), ctr.imageConfig(armRef));
                        assertEquals("arm64", ctr.imageConfigBlob(armRef).path("architecture").asString());
                        long t0 = System.nanoTime();
                        Command.Result r = ctr.run(Duration.ofMinutes(10), armRun.ctrArgs(armRootfs, "observe-arm64",
                                observeArgs(armRun.agent().expandedArgs(armRun.environment())), false, null, ctr.hostPidNamespace()).toArray());
                        System.out.printf("images: observe in the arm64 agent image under qemu-aarch64 %d ms%n", (System.nanoTime() - t0) / 1_000_000);
                        r.check();
                        JsonNode inside = JSON.readTree(r.stdout());
                        assertEquals(comparable(observeOutside()), comparable(inside));
                        assertEquals(containerd.pid(), inside.path("containerd").path("pid").asLong(), "the real containerd, seen through hostPID");
                    } finally {
                        ctr.unmountImage(armRootfs);
                        // its layers (≈ 400 MB unpacked) go now, not in the final rm of the work directory
                        ctr.run(NodeCtr.TIMEOUT, "images", "rm", "--sync", armRef);
                    }
                }
            }
    }

    /**
     * The newest generation, with Talos 1.14's layout (no {@code 01-registries.part}; {@code cri.toml} 0600). 1.7, 2.1
     * and 2.2 are not run here: the truth table and the config semantics run every generation, and what this class
     * adds — the image under the chart's security context, pulled and started by containerd's CRI and runc — is
     * covered by the oldest and newest of the two CRI plugin families (docs/reality.md, "Running it").
     */
    @Nested
    @DisplayName("containerd 2.3.4 (containerd's own archive), Talos 1.14 layout")
    class Containerd23 extends Runs {
        @BeforeAll
        static void start() throws Exception {
            startOn("2.3");
        }

        @AfterAll
        static void stopIt() {
            stopGeneration();
        }
    }

    /** The runs every generation gets (the coordinator's plan, which does not depend on it, runs on 1.6 only). */
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    abstract class Runs {
        /**
         * {@code run} exactly as the DaemonSet runs it: it serves the probes' paths and /metrics on the chart's
         * port, publishes the condition to the API server, and the process has the security context the
         * chart asks for, as the kernel reports it in /proc.
         */
        @Test
        @Order(1)
        void runServesItsProbesAndPublishesUnderTheChartsSecurityContext() throws Exception {
            String id = "agent-run";
            Path log = nodeWork.resolve("agent-run.log");
            List<String> args = run.agent().expandedArgs(run.environment());
            long t0 = System.nanoTime();
            ctr.check(run.ctrArgs(rootfs, id, args, true, ctr.nodePath(log), ctr.hostPidNamespace()).toArray());
            try {
                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
                String base = "http://127.0.0.1:" + run.agent().metricsPort();
                // the chart's startup probe allows 36 x 5 s for the JVM to start (under a CPU limit, if one is set)
                Poll.until(Duration.ofMinutes(3), "/healthz on " + base + " (log " + log + ")",
                        () -> status(http, base + run.agent().probePaths().get(0)) == 200);
                long started = (System.nanoTime() - t0) / 1_000_000;
                Poll.until(Duration.ofMinutes(2), "/readyz", () -> status(http, base + "/readyz") == 200);
                for (String path : run.agent().probePaths()) {
                    assertEquals(200, status(http, base + path), path);
                }
                String metrics = get(http, base + "/metrics");
                assertTrue(Pattern.compile("(?m)^crifresh_node_fresh(\\{[^}]*})? 1(\\.0)?$").matcher(metrics).find(), metrics);
                Poll.until(Duration.ofMinutes(1), "the condition on Node " + NODE,
                        () -> condition(NODE).map(c -> c.getStatus().equals("True")).orElse(false));
                NodeCondition c = condition(NODE).orElseThrow();
                assertEquals("ContainerdStartedAfterConfig", c.getReason(), c.toString());
                System.out.printf("images: agent container healthy %d ms after ctr run (CPU limit %s)%n", started,
                        run.agent().cpuLimit() > 0 ? Math.round(run.agent().cpuLimit() * 1000) + "m" : "none");

                long pid = taskPid(id);
                checkProcess(pid, run.argv(args));
            } finally {
                ctr.run(Duration.ofMinutes(1), "task", "kill", "--signal", "SIGTERM", id);
                Poll.until(Duration.ofMinutes(1), "the agent to stop on SIGTERM",
                        () -> ctr.run(Duration.ofMinutes(1), "task", "ls").stdout().lines()
                                .noneMatch(l -> l.startsWith(id + " ") && l.contains("RUNNING")));
                ctr.run(Duration.ofMinutes(1), "task", "rm", id);
                ctr.run(Duration.ofMinutes(1), "container", "rm", id);
            }
            assertTrue(Files.readString(log).contains("SIGTERM: stopping"), Files.readString(log));
        }

        /**
         * {@code observe} in the container, with the chart's host options, and on the host give the same
         * evidence: fresh as rendered, then stale once the registries part is rewritten (last: the node stays stale).
         */
        @Test
        @Order(2)
        void observeInTheContainerSeesWhatTheHostSees() throws Exception {
            JsonNode inside = observeInside("observe-fresh");
            JsonNode outside = observeOutside();
            assertEquals("fresh", inside.path("verdict").asString(), inside.toPrettyString());
            assertEquals(comparable(outside), comparable(inside));
            assertEquals(containerd.pid(), inside.path("containerd").path("pid").asLong(), "the real containerd, seen through hostPID");

            // Talos rewrites the registries part in place (mode 0600) after containerd started: stale
            for (String f : node.layout().authFiles()) {
                node.write(f, f.equals(TalosConfigFiles.CRI_TOML) ? node.criToml(registry.host(), V2)
                        : node.registriesPart(registry.host(), V2), f.equals(TalosConfigFiles.REGISTRIES_PART));
            }
            JsonNode staleInside = observeInside("observe-stale");
            JsonNode staleOutside = observeOutside();
            assertEquals("stale", staleInside.path("verdict").asString(), staleInside.toPrettyString());
            assertEquals(comparable(staleOutside), comparable(staleInside));
        }
    }

    /** Per node: NODE ROLE VERDICT REASON DECISION, the plan's classification. */
    private static List<String> classification(String planTable) {
        return planTable.lines().takeWhile(l -> !l.isBlank())
                .map(l -> String.join(" ", List.of(l.trim().split("\\s+")).subList(0, 5))).toList();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
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
            if (arg.matches("--(proc-root|host-root|mode|watch|containerd-match|margin|fingerprint-key|cri-socket"
                    + "|expected-mount|containerd-generation)=.*")) {
                out.add(arg);
            }
        }
        return out;
    }

    /**
     * The evidence without what differs between two reads a moment apart: the read time and what derives
     * from the boot-time estimate (/proc/uptime against the wall clock, a few µs apart): containerd's
     * wall-clock start, the margin in the message and the socket's distance from the start. Its start in
     * ticks, the socket's stamps and the witness's verdict, the files and the verdict stay.
     */
    private static JsonNode comparable(JsonNode observation) {
        ObjectNode copy = (ObjectNode) observation.deepCopy();
        copy.remove(List.of("observedAt", "bootTime", "bootTimeErrorMs", "message"));
        if (copy.path("containerd") instanceof ObjectNode c) {
            c.remove("startedAt");
            // the socket's distance from that start, in the witness's words
            if (c.path("socket") instanceof ObjectNode socket) {
                socket.remove("clockDetail");
            }
        }
        // Nor the change stamps: outside, the agent sees the whole node tree and stamps every directory above
        // the config; inside, only what its volumes show (/etc/cri and below: /host/etc is the container's own
        // mount target, see pullTheImageWithTheRealContainerd). The files' mtimes, sizes, digests and the
        // verdict stay.
        for (String list : List.of("files", "directories")) {
            copy.path("config").path(list).values().forEach(f -> ((ObjectNode) f).remove(List.of("changedAt", "changedBy")));
        }
        return copy;
    }

    /** What the kernel says about the agent's process: the chart's security context, applied. */
    private static void checkProcess(long pid, List<String> argv) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        List<String> cmdline = List.of(new String(Files.readAllBytes(proc.resolve("cmdline")), java.nio.charset.StandardCharsets.UTF_8)
                .split("\u0000"));
        assertEquals(argv, cmdline, "the process runs the image's ENTRYPOINT with the chart's args");
        String status = Files.readString(proc.resolve("status"));
        assertTrue(status.matches("(?s).*\\nUid:\\s+0\\s+0\\s+0\\s+0\\n.*"), "runAsUser 0: " + status);
        assertTrue(status.matches("(?s).*\\nGid:\\s+0\\s+0\\s+0\\s+0\\n.*"), "runAsGroup 0: " + status);
        for (String set : List.of("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) {
            assertTrue(status.contains("\n" + set + ":\t0000000000000000\n"), "drop ALL: " + set + " in " + status);
        }
        assertTrue(status.contains("\nNoNewPrivs:\t1\n"), "allowPrivilegeEscalation false: " + status);
        assertTrue(status.contains("\nSeccomp:\t2\n"), "seccomp RuntimeDefault (a filter): " + status);
        assertEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/pid")), Files.readSymbolicLink(proc.resolve("ns/pid")),
                "hostPID: the test's PID namespace");
        Map<String, String> mounts = new java.util.HashMap<>();
        for (String line : Files.readAllLines(proc.resolve("mountinfo"))) {
            String[] f = line.split(" ");
            mounts.put(f[4], f[5]);
        }
        assertTrue(List.of(mounts.get("/").split(",")).contains("ro"), "readOnlyRootFilesystem: / is " + mounts.get("/"));
        for (ChartAgent.Mount m : run.agent().mounts()) {
            String options = mounts.get(m.mountPath());
            assertTrue(options != null, m.mountPath() + " is mounted: " + mounts);
            assertEquals(m.readOnly(), List.of(options.split(",")).contains("ro"), m.mountPath() + " " + options);
        }
    }

    private static long taskPid(String id) {
        for (String line : ctr.check("task", "ls").stdout().lines().skip(1).toList()) {
            String[] cells = line.trim().split("\\s+");
            if (cells[0].equals(id)) {
                return Long.parseLong(cells[1]);
            }
        }
        throw new AssertionError("no task " + id);
    }

    private static int status(HttpClient http, String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    // --- setup ---

    private static ChartRun chartRun(ChartAgent agent, JsonNode imageConfig) throws IOException {
        Path volumes = nodeWork.resolve("volumes");
        Path signing = Files.createDirectories(volumes.resolve("signing-key"));
        Path trust = Files.createDirectories(volumes.resolve("fingerprint-key"));
        Path tmp = Files.createDirectories(volumes.resolve("tmp"));
        for (ChartAgent.Mount m : agent.mounts()) {
            Path dir = m.name().equals("signing-key") ? signing : m.name().equals("fingerprint-key") ? trust : null;
            for (String item : m.secretItems()) {
                Path file = dir.resolve(item);
                Files.copy(keys.resolve(item), file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode(m.secretMode())));
            }
        }
        Path kube = Files.createDirectories(nodeWork.resolve("kube"));
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
                ImageBuildTest.strings(imageConfig.path("Env")), Map.of("spec.nodeName", NODE, "metadata.name", "crifresh-agent-" + NODE),
                Map.of("signing-key", ctr.nodePath(signing), "fingerprint-key", ctr.nodePath(trust), "tmp", ctr.nodePath(tmp)),
                Map.of("KUBECONFIG", "/etc/crifresh/kube/config"),
                List.of(new ChartRun.Mount(ctr.nodePath(kube), "/etc/crifresh/kube")));
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
