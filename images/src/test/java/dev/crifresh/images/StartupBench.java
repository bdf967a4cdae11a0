package dev.crifresh.images;

import dev.crifresh.mockapi.CrudApiServer;
import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.reality.ContainerdGeneration;
import dev.crifresh.reality.CriClient;
import dev.crifresh.reality.CriNode;
import dev.crifresh.reality.Prerequisites;
import dev.crifresh.reality.RealContainerd;
import dev.crifresh.reality.RealRegistry;
import dev.crifresh.sim.scenario.Credential;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;

/**
 * The agent's start as a node sees it after a reboot (issue 37 item 7), printed, not asserted: the agent
 * image pulled by the real containerd's CRI plugin and run with {@code ctr run} exactly as the rendered
 * chart's DaemonSet says ({@link ChartRun}: security context, mounts, the chart's memory and CPU limits
 * as CFS quota), in-cluster over HTTPS as in a pod (the service account's token and CA mounted where
 * the kubelet mounts them, a TLS front to the mock API server), each run on a Node without the condition.
 * Per run it prints the time from {@code ctr run} to the first ContainerdConfigFresh condition seen
 * through a watch on the Node (the first condition patch), the same from the container process's own
 * start (runc's share taken out), the agent's CPU time then and, after the last run, its idle RSS.
 *
 * <p>Run with {@code ./mvnw -B -o -Pstartup-bench -pl images -am verify -DskipTests}; options
 * {@code -Dstartup.runs=5}, {@code -Dstartup.idleSeconds=60}, {@code -Dstartup.set=key=value,...} (chart
 * values, e.g. {@code resources.limits.cpu=100m} for the former default limit), {@code -Dstartup.generation=1.6}.
 */
public final class StartupBench {
    private static final Credential CREDENTIAL = new Credential("deploy-bot", "token-v1");
    private static final String TOKEN = "startup-bench-service-account-token";
    /** The mock API server logs every request at INFO; kept here so the setting is not collected with the logger. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    @SuppressWarnings("checkstyle:methodlength") // one benchmark measurement, set up, run and printed in order
    public static void main(String[] args) throws Exception {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
        int runs = Integer.getInteger("startup.runs", 5);
        int idleSeconds = Integer.getInteger("startup.idleSeconds", 60);
        Map<String, Object> sets = new LinkedHashMap<>();
        for (String kv : System.getProperty("startup.set", "").split(",")) {
            if (!kv.isBlank()) {
                sets.put(kv.substring(0, kv.indexOf('=')).trim(), kv.substring(kv.indexOf('=') + 1).trim());
            }
        }
        Path work = Files.createTempDirectory("crifresh-startup-bench-");
        Vertx vertx = Vertx.vertx();
        RealRegistry registry = null;
        RealContainerd containerd = null;
        KubernetesMockServer api = null;
        NodeCtr ctr = null;
        Path rootfs = null;
        try {
            BuiltImages images = BuiltImages.get();
            Prerequisites.missing().ifPresent(m -> {
                throw new IllegalStateException("the real containerd cannot run here: " + m);
            });
            Tools.require("nsenter", "ctr");
            registry = RealRegistry.start(work.resolve("registry"), CREDENTIAL);
            String ref = registry.host() + "/crifresh/agent:startup";
            images.buildah.run("push", "--tls-verify=false", "--creds", CREDENTIAL.username() + ":" + CREDENTIAL.password(),
                    BuiltImages.AGENT, "docker://" + ref);
            Path keys = work.resolve("keys");
            Command.run(Duration.ofMinutes(2), Command.of(ImageRunTest.java(), "-jar",
                    BuiltImages.REPO.resolve("coordinator/target/crifresh-coordinator.jar"), "keys", "init", "--out-dir", keys)).check();

            ContainerdGeneration generation = ContainerdGeneration.named(System.getProperty("startup.generation", "1.6"));
            generation.missing().ifPresent(m -> {
                throw new IllegalStateException(generation + " cannot run here: " + m);
            });
            CriNode node = new CriNode(work.resolve("node"), generation.layout());
            for (String f : List.of("/etc/hosts", "/etc/resolv.conf")) {
                Files.createDirectories(node.path(f).getParent());
                Files.copy(Path.of(f), node.path(f), StandardCopyOption.REPLACE_EXISTING);
            }
            node.render(registry.host(), CREDENTIAL);
            Instant rendered = Instant.now();
            Poll.until(Duration.ofSeconds(5), "500 ms after the render", () -> Instant.now().isAfter(rendered.plusMillis(500)));
            containerd = RealContainerd.start(node, generation);
            CriClient.Pull pull = containerd.cri().pull(ref);
            if (!pull.ok()) {
                throw new IllegalStateException(ref + ": " + pull.detail());
            }
            ctr = new NodeCtr(containerd, generation.system() ? "ctr" : RealContainerd.GENERATION_BIN + "/ctr");
            Path nodeWork = Files.createDirectories(node.hostRoot().resolve("var/lib/crifresh-startup-bench"));
            rootfs = ctr.nodePath(nodeWork.resolve("rootfs"));
            ctr.mountImage(ref, rootfs);

            api = CrudApiServer.crud();
            KubernetesClient client = api.createClient();
            TlsFront front = new TlsFront(vertx, api.getPort());
            Path serviceAccount = Files.createDirectories(nodeWork.resolve("serviceaccount"));
            Files.copy(front.caPem(), serviceAccount.resolve("ca.crt"), StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(serviceAccount.resolve("token"), TOKEN + "\n");

            ChartAgent agent = ChartAgent.render(sets);
            Map<String, Path> volumes = volumes(agent, nodeWork.resolve("volumes"), keys, ctr);
            Map<String, String> inCluster = Map.of("KUBERNETES_SERVICE_HOST", "localhost",
                    "KUBERNETES_SERVICE_PORT", Integer.toString(front.port()));
            List<ChartRun.Mount> saMount = List.of(new ChartRun.Mount(ctr.nodePath(serviceAccount),
                    "/var/run/secrets/kubernetes.io/serviceaccount"));
            String bootId = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            JsonImageConfig image = new JsonImageConfig(ImageBuildTest.strings(ctr.imageConfig(ref).path("Entrypoint")),
                    ImageBuildTest.strings(ctr.imageConfig(ref).path("Env")));
            System.out.printf("STARTUP chart resources: CPU limit %s, memory limit %d MiB; containerd %s; load %s%n",
                    agent.cpuLimit() > 0 ? Math.round(agent.cpuLimit() * 1000) + "m" : "none",
                    agent.memoryLimitBytes() >> 20, generation, loadavg());

            List<Double> fromRun = new ArrayList<>();
            List<Double> fromProcess = new ArrayList<>();
            List<Double> cpu = new ArrayList<>();
            for (int run = 1; run <= runs; run++) {
                String name = "worker-" + run;
                createNode(client, name, bootId);
                AtomicLong seen = new AtomicLong();
                Watch watch = client.nodes().withName(name).watch(new Watcher<Node>() {
                    @Override
                    public void eventReceived(Action action, Node n) {
                        if (n.getStatus() != null && n.getStatus().getConditions().stream()
                                .anyMatch(c -> c.getType().equals("ContainerdConfigFresh"))) {
                            seen.compareAndSet(0, System.nanoTime());
                        }
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                    }
                });
                ChartRun chartRun = new ChartRun(agent, image.entrypoint(), image.env(), Map.of("spec.nodeName", name, "metadata.name", "crifresh-agent-" + name),
                        volumes, inCluster, saMount);
                String id = "startup-" + run;
                Path log = nodeWork.resolve(id + ".log");
                List<String> agentArgs = agent.expandedArgs(chartRun.environment());
                long t0 = System.nanoTime();
                ctr.check(chartRun.ctrArgs(rootfs, id, agentArgs, true, ctr.nodePath(log), ctr.hostPidNamespace()).toArray());
                try {
                    long pid = taskPid(ctr, id);
                    long processStartNanos = processStartNanos(pid);
                    Poll.until(Duration.ofMinutes(3), "the first condition on " + name + " (log " + log + ")", () -> seen.get() != 0);
                    double ms = (seen.get() - t0) / 1e6;
                    double processMs = (seen.get() - processStartNanos) / 1e6;
                    double cpuMs = runNanos(pid) / 1e6;
                    fromRun.add(ms);
                    fromProcess.add(processMs);
                    cpu.add(cpuMs);
                    System.out.printf("STARTUP run %d: ctr run -> first condition patch %.0f ms (from the process's start %.0f ms),"
                            + " agent CPU by then %.0f ms; load %s%n", run, ms, processMs, cpuMs, loadavg());
                    if (run == runs && idleSeconds > 0) {
                        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
                        System.out.printf("STARTUP idle: after %d s, RSS %s of the agent process (run %d)%n", idleSeconds,
                                rss(pid), run);
                    }
                } finally {
                    watch.close();
                    ctr.run(Duration.ofMinutes(1), "task", "kill", "--signal", "SIGKILL", id);
                    NodeCtr c = ctr;
                    Poll.until(Duration.ofMinutes(1), "the agent to stop", () -> c.run(Duration.ofMinutes(1), "task", "ls")
                            .stdout().lines().noneMatch(l -> l.startsWith(id + " ") && l.contains("RUNNING")));
                    ctr.run(Duration.ofMinutes(1), "task", "rm", id);
                    ctr.run(Duration.ofMinutes(1), "container", "rm", id);
                }
            }
            System.out.printf("STARTUP %d runs, CPU limit %s: ctr run -> first condition patch median %.0f ms (min %.0f, max %.0f);"
                            + " from the process's start median %.0f ms (min %.0f, max %.0f); agent CPU median %.0f ms"
                            + " (min %.0f, max %.0f); load %s%n", runs,
                    agent.cpuLimit() > 0 ? Math.round(agent.cpuLimit() * 1000) + "m" : "none",
                    median(fromRun), min(fromRun), max(fromRun), median(fromProcess), min(fromProcess), max(fromProcess),
                    median(cpu), min(cpu), max(cpu), loadavg());
            front.close();
            client.close();
        } finally {
            if (ctr != null && rootfs != null) {
                ctr.unmountImage(rootfs);
            }
            if (containerd != null) {
                containerd.close();
            }
            if (registry != null) {
                registry.close();
            }
            if (api != null) {
                api.destroy();
            }
            vertx.close();
            Command.run(Duration.ofMinutes(2), Command.of("rm", "-rf", "--one-file-system", work));
        }
        System.exit(0);
    }

    private record JsonImageConfig(List<String> entrypoint, List<String> env) {
    }

    /** The chart's Secret volumes with the keys from {@code keys init}, 0400 as the chart mounts them; /tmp empty. */
    private static Map<String, Path> volumes(ChartAgent agent, Path dir, Path keys, NodeCtr ctr) throws Exception {
        Map<String, Path> sources = new LinkedHashMap<>();
        for (ChartAgent.Mount m : agent.mounts()) {
            if (m.hostPath() != null) {
                continue;
            }
            Path volume = Files.createDirectories(dir.resolve(m.name()));
            for (String item : m.secretItems()) {
                Path file = volume.resolve(item);
                Files.copy(keys.resolve(item), file, StandardCopyOption.REPLACE_EXISTING);
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(ImageRunTest.mode(m.secretMode())));
            }
            sources.put(m.name(), ctr.nodePath(volume));
        }
        return sources;
    }

    private static void createNode(KubernetesClient client, String name, String bootId) {
        Node n = new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withNewNodeInfo().withBootID(bootId).endNodeInfo().endStatus().build();
        client.nodes().resource(n).create();
        Node created = client.nodes().withName(name).get();
        if (created.getStatus() == null || created.getStatus().getNodeInfo() == null) {
            created.setStatus(n.getStatus());
            client.nodes().resource(created).updateStatus();
        }
    }

    private static long taskPid(NodeCtr ctr, String id) {
        for (String line : ctr.check("task", "ls").stdout().lines().skip(1).toList()) {
            String[] cells = line.trim().split("\\s+");
            if (cells[0].equals(id)) {
                return Long.parseLong(cells[1]);
            }
        }
        throw new IllegalStateException("no task " + id);
    }

    /** The process's start (field 22 of /proc/pid/stat, clock ticks since boot) on the {@link System#nanoTime()} scale. */
    private static long processStartNanos(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long startMillis = Long.parseLong(f[19]) * 10;
        double uptimeSeconds = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
        long now = System.nanoTime();
        return now - TimeUnit.MILLISECONDS.toNanos(Math.round(uptimeSeconds * 1000) - startMillis);
    }

    /** The sum of the process's threads' run times ({@code schedstat}, nanoseconds). */
    private static long runNanos(long pid) throws Exception {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    sum += Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
                } catch (java.io.IOException e) {
                    // the thread ended
                }
            }
        }
        return sum;
    }

    private static String rss(long pid) throws Exception {
        Map<String, String> status = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            int colon = line.indexOf(':');
            status.put(line.substring(0, colon), line.substring(colon + 1).trim());
        }
        return String.format("%.1f MiB (%.1f MiB anonymous + %.1f MiB file-backed)", kb(status.get("VmRSS")) / 1024.0,
                kb(status.get("RssAnon")) / 1024.0, kb(status.get("RssFile")) / 1024.0);
    }

    private static long kb(String value) {
        return Long.parseLong(value.replaceAll("[^0-9]", ""));
    }

    private static String loadavg() {
        try {
            return String.join(" ", List.of(Files.readString(Path.of("/proc/loadavg")).trim().split(" ")).subList(0, 3));
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double min(List<Double> values) {
        return Collections.min(values);
    }

    private static double max(List<Double> values) {
        return Collections.max(values);
    }

    /**
     * HTTPS in front of the plain-HTTP mock API server, as a pod reaches the API server: TLS with a
     * self-signed certificate for {@code localhost} (its PEM is the service account's {@code ca.crt}),
     * every connection piped as bytes to the mock (HTTP and WebSocket watches pass unchanged).
     */
    private static final class TlsFront implements AutoCloseable {
        private final SelfSignedCertificate certificate = SelfSignedCertificate.create("localhost");
        private final NetServer server;

        TlsFront(Vertx vertx, int backendPort) throws Exception {
            NetClient client = vertx.createNetClient();
            server = vertx.createNetServer(new NetServerOptions().setSsl(true).setKeyCertOptions(certificate.keyCertOptions()))
                    .connectHandler(in -> {
                        in.pause();
                        client.connect(backendPort, "localhost").onSuccess(out -> {
                            out.closeHandler(v -> in.close());
                            in.closeHandler(v -> out.close());
                            in.pipeTo(out);
                            out.pipeTo(in);
                            in.resume();
                        }).onFailure(t -> in.close());
                    });
            server.listen(0, "localhost").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }

        int port() {
            return server.actualPort();
        }

        Path caPem() {
            return Path.of(certificate.certificatePath());
        }

        @Override
        public void close() {
            server.close();
        }
    }
}
