package dev.crifresh.agent.bench;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.kube.Fabric8NodeApi;
import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.agent.testing.FakeProc;
import dev.crifresh.agent.testing.InCluster;
import dev.crifresh.agent.testing.MockApi;
import dev.crifresh.agent.testing.TalosFiles;
import dev.crifresh.agent.testing.TestClock;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.ClaimsJson;
import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's performance figures (issue 3), printed, not asserted:
 * <ol>
 *   <li>config write → condition visible through a watch, p50/p99 over 200 writes (in-process agent with
 *       production timing, mock API server);</li>
 *   <li>status writes per node-hour at the default heartbeat, measured with time compressed 60×;</li>
 *   <li>idle RSS and CPU of the shaded jar run as a child process with the image's JVM flags, on the
 *       real /proc with a real process carrying Talos' CRI containerd arguments.</li>
 * </ol>
 * Run with {@code ./mvnw -B -o -Pbench -pl agent -am verify -DskipTests}.
 */
@SuppressWarnings("checkstyle:filelength") // one benchmark program
public final class AgentBench {
    private static final String NODE = "bench-node";
    private static final String BOOT_ID = "0b9d7f8e-1111-4222-8333-444455556666";
    private static final byte[] FINGERPRINT_KEY = "fingerprint-key-of-32-bytes-xxxx".getBytes(StandardCharsets.US_ASCII);
    private static final java.util.regex.Pattern ENTRYPOINT =
            java.util.regex.Pattern.compile("^ENTRYPOINT\\s*\\[(.*)]\\s*$", java.util.regex.Pattern.MULTILINE);

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args.length > 0 ? args[0] : "agent/target/crifresh-agent.jar");
        Path dockerfile = Path.of(args.length > 1 ? args[1] : "Dockerfile.agent");
        int writes = Integer.getInteger("bench.writes", 200);
        int idleSeconds = Integer.getInteger("bench.idleSeconds", 60);
        String only = System.getProperty("bench.only", "latency,writes,idle");
        Vertx vertx = Vertx.vertx();
        try {
            if (only.contains("latency")) {
                latency(vertx, writes);
            }
            if (only.contains("writes")) {
                writesPerHour(vertx);
            }
            if (only.contains("idle")) {
                idle(vertx, jar, idleSeconds, jvmFlags(dockerfile));
            }
            if (only.contains("startup")) {
                startup(vertx, jar, jvmFlags(dockerfile));
            }
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** A node with one fake containerd started 500 s after boot and config written 100 s before that. */
    private record Fixture(Path dir, FakeProc proc, TalosFiles files, TestClock clock) {
        static Fixture create() throws Exception {
            Path dir = Files.createTempDirectory("crifresh-bench");
            TestClock clock = new TestClock(Instant.now().minusSeconds(1000));
            Instant start = clock.boot().plusSeconds(500);
            FakeProc proc = new FakeProc(dir.resolve("proc")).bootId(BOOT_ID).uptime(Duration.ofSeconds(1000))
                    .process(100, FakeContainerd.TALOS_CRI, clock.ticksAt(start));
            TalosFiles files = new TalosFiles(dir.resolve("host")).writeAll("token-0", start.minusSeconds(100));
            return new Fixture(dir, proc, files, clock);
        }
    }

    private static SigningKey signingKey() throws Exception {
        return Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(Ed25519Keys.generate()));
    }

    private static AttestationClaims claims(NodeCondition c) {
        String token = AttestationMessage.token(c.getMessage()).orElseThrow();
        String payload = new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8);
        return ClaimsJson.read(payload);
    }

    private static NodeCondition ours(Node n) {
        if (n == null || n.getStatus() == null) {
            return null;
        }
        return n.getStatus().getConditions().stream()
                .filter(c -> ConditionContract.CONDITION_TYPE.equals(c.getType())).findFirst().orElse(null);
    }

    static void latency(Vertx vertx, int writes) throws Exception {
        Fixture f = Fixture.create();
        try (MockApi api = new MockApi(vertx)) {
            api.createNode(NODE, BOOT_ID);
            AgentSettings settings = AgentSettings.defaults(NODE).withRoots(f.proc().root(), f.files().hostRoot())
                    .withMetricsPort(-1);
            AgentRuntime agent = AgentRuntime.start(vertx, new Fabric8NodeApi(api.client()), settings, signingKey(), FINGERPRINT_KEY,
                    f.clock()).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            Map<String, Long> seen = new ConcurrentHashMap<>();
            Watch watch = api.client().nodes().withName(NODE).watch(new Watcher<Node>() {
                @Override
                public void eventReceived(Action action, Node node) {
                    long now = System.nanoTime();
                    NodeCondition c = ours(node);
                    if (c != null) {
                        claims(c).registries().values().forEach(fp -> seen.putIfAbsent(fp, now));
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            });
            Poll.until(Duration.ofSeconds(30), "first publish", () -> agent.ready());
            List<Double> millis = new ArrayList<>();
            for (int i = 1; i <= writes; i++) {
                String password = "token-" + i;
                String expected = CredentialFingerprint.of(FINGERPRINT_KEY,
                        new RegistryAuth("ghcr.io", "deploy-bot", password, ""));
                long t0 = System.nanoTime();
                f.files().write(TalosFiles.CRI_TOML, TalosFiles.criToml(password), null);
                Poll.until(Duration.ofSeconds(30), "condition for write " + i, () -> seen.containsKey(expected));
                millis.add((seen.get(expected) - t0) / 1e6);
            }
            watch.close();
            agent.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            Collections.sort(millis);
            System.out.printf("BENCH latency config write -> condition seen by a watch, %d writes, debounce %d ms:"
                            + " p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms%n", writes,
                    settings.debounce().toMillis(), pct(millis, 50), pct(millis, 90), pct(millis, 99),
                    millis.get(millis.size() - 1));
        }
    }

    static void writesPerHour(Vertx vertx) throws Exception {
        Fixture f = Fixture.create();
        int scale = 60;
        Duration run = Duration.ofSeconds(60);
        try (MockApi api = new MockApi(vertx)) {
            api.createNode(NODE, BOOT_ID);
            AgentSettings defaults = AgentSettings.defaults(NODE);
            AgentSettings settings = defaults.withRoots(f.proc().root(), f.files().hostRoot()).withMetricsPort(-1)
                    .withTiming(defaults.heartbeat().dividedBy(scale), defaults.validity(), defaults.procPoll(),
                            defaults.debounce());
            AtomicInteger versions = new AtomicInteger();
            Map<String, Boolean> messages = new ConcurrentHashMap<>();
            Watch watch = api.client().nodes().withName(NODE).watch(new Watcher<Node>() {
                @Override
                public void eventReceived(Action action, Node node) {
                    NodeCondition c = ours(node);
                    if (c != null && messages.putIfAbsent(c.getMessage(), true) == null) {
                        versions.incrementAndGet();
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            });
            long start = System.nanoTime();
            AgentRuntime agent = AgentRuntime.start(vertx, new Fabric8NodeApi(api.client()), settings, signingKey(), FINGERPRINT_KEY,
                    f.clock()).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            Poll.until(run.plusSeconds(5), "the run to end", () -> System.nanoTime() - start > run.toNanos());
            agent.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            String metrics = agent.metrics().registry().scrape();
            watch.close();
            System.out.printf("BENCH writes: %d condition writes seen in %d s with heartbeat %s (the default %s"
                            + " compressed %dx) = %d writes per node-hour at the default heartbeat, incl. the first"
                            + " publish; agent counted: %s%n", versions.get(), run.toSeconds(), settings.heartbeat(),
                    defaults.heartbeat(), scale, versions.get(), metricLine(metrics, "crifresh_publishes_total{result=\"success\"}"));
        }
    }

    /**
     * The JVM flags the image ships: the arguments between {@code java} and {@code -jar} in
     * Dockerfile.agent's ENTRYPOINT; or {@code -Dbench.jvmFlags="..."} (space-separated) to compare others.
     */
    static List<String> jvmFlags(Path dockerfile) throws java.io.IOException {
        String override = System.getProperty("bench.jvmFlags");
        if (override != null && !override.isBlank()) {
            return List.of(override.trim().split("\\s+"));
        }
        java.util.regex.Matcher m = ENTRYPOINT.matcher(Files.readString(dockerfile));
        if (!m.find()) {
            throw new IllegalStateException(dockerfile + " has no ENTRYPOINT [\"java\", ..., \"-jar\", ...]");
        }
        List<String> words = new ArrayList<>();
        java.util.regex.Matcher quoted = java.util.regex.Pattern.compile("\"([^\"]*)\"").matcher(m.group(1));
        while (quoted.find()) {
            words.add(quoted.group(1));
        }
        int jarAt = words.indexOf("-jar");
        if (words.isEmpty() || !words.get(0).equals("java") || jarAt < 0) {
            throw new IllegalStateException(dockerfile + ": ENTRYPOINT is not java <flags> -jar <jar>: " + words);
        }
        return List.copyOf(words.subList(1, jarAt));
    }

    /**
     * The runtime that runs the agent: {@code -Dbench.java=<java.home or its bin/java>} (another JDK, a
     * jlink'd image), else the JVM running the benchmark.
     */
    static String javaCommand() {
        String home = System.getProperty("bench.java", System.getProperty("java.home"));
        Path java = Path.of(home);
        return (Files.isDirectory(java) ? java.resolve("bin").resolve("java") : java).toString();
    }

    @SuppressWarnings("checkstyle:methodlength") // one benchmark measurement, set up, run and printed in order
    static void idle(Vertx vertx, Path jar, int idleSeconds, List<String> jvmFlags) throws Exception {
        Path dir = Files.createTempDirectory("crifresh-bench-idle");
        String marker = "/tmp/crifresh-bench-" + UUID.randomUUID();
        List<String> argv = new ArrayList<>(FakeContainerd.TALOS_CRI);
        argv.addAll(List.of("--root", marker));
        InCluster inCluster = null;
        try (MockApi api = new MockApi(vertx); FakeContainerd containerd = FakeContainerd.startServing(argv)) {
            api.createNode(NODE, Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim());
            TalosFiles files = new TalosFiles(dir.resolve("host"));
            // the files must predate containerd but not the boot: place them just before the process started
            Instant boot = new dev.crifresh.agent.host.BootClockSampler(
                    dev.crifresh.agent.host.HostClock.system(Path.of("/proc")), 5).sample().bootWallTime();
            files.writeAll("token-0", boot.plusMillis(containerd.startTicks() * 10).minusSeconds(1));
            Path signing = Files.writeString(dir.resolve("signing.key"), Ed25519Keys.signingKeyPem(Ed25519Keys.generate()));
            Path fingerprint = Files.write(dir.resolve("fingerprint.key"), FINGERPRINT_KEY);
            List<String> command = new ArrayList<>(List.of(javaCommand()));
            command.addAll(jvmFlags);
            command.addAll(List.of("-jar", jar.toString(), "run", "--node-name", NODE, "--proc-root", "/proc",
                    "--host-root", files.hostRoot().toString(), "--containerd-match",
                    ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker, "--signing-key", signing.toString(),
                    "--fingerprint-key", fingerprint.toString(), "--metrics-port", "0"));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("agent.log").toFile());
            pb.environment().remove("KUBECONFIG");
            pb.environment().remove("KUBERNETES_SERVICE_HOST");
            pb.environment().remove("KUBERNETES_SERVICE_PORT");
            String client = System.getProperty("bench.client", "in-cluster");
            if (client.equals("fabric8")) {
                // the former path: fabric8's standard configuration from environment variables (no kubeconfig)
                pb.environment().put("KUBERNETES_MASTER", api.client().getConfiguration().getMasterUrl());
                pb.environment().put("KUBERNETES_AUTH_TOKEN", "bench");
                pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
                pb.environment().put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
            } else {
                // as in a pod: the service's address, the service account's CA and token, HTTPS
                inCluster = new InCluster(vertx, api, dir, "bench-service-account-token");
                pb.environment().putAll(inCluster.env());
            }
            // The image sets this too: glibc's per-thread malloc arenas cost RSS and buy a small agent nothing.
            pb.environment().put("MALLOC_ARENA_MAX", "2");
            Process agent = pb.start();
            try {
                NodeCondition c = Poll.until(Duration.ofSeconds(60), "the child agent's first publish",
                        () -> ours(api.client().nodes().withName(NODE).get()), x -> x != null);
                long startupTicks = cpuTicks(agent.pid());
                Map<String, Long> threadsBefore = threadNanos(agent.pid());
                long run0 = runNanos(threadsBefore);
                long rssAfterStart = statusKb(agent.pid(), "VmRSS");
                long t0 = System.nanoTime();
                Poll.until(Duration.ofSeconds(idleSeconds + 10), "idle period",
                        () -> System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(idleSeconds));
                long idleTicks = cpuTicks(agent.pid()) - startupTicks;
                double seconds = (System.nanoTime() - t0) / 1e9;
                long rss = statusKb(agent.pid(), "VmRSS");
                long hwm = statusKb(agent.pid(), "VmHWM");
                long anon = statusKb(agent.pid(), "RssAnon");
                long file = statusKb(agent.pid(), "RssFile");
                // a second window of the same length: the steady state once start-up work (JIT) has settled
                long t1 = System.nanoTime();
                long ticks1 = cpuTicks(agent.pid());
                Map<String, Long> threadsBetween = threadNanos(agent.pid());
                long run1 = runNanos(threadsBetween);
                Poll.until(Duration.ofSeconds(idleSeconds + 10), "second idle period",
                        () -> System.nanoTime() - t1 > TimeUnit.SECONDS.toNanos(idleSeconds));
                long steadyTicks = cpuTicks(agent.pid()) - ticks1;
                double steadySeconds = (System.nanoTime() - t1) / 1e9;
                System.out.printf("BENCH idle: verdict %s; startup CPU %.2f s; after %.0f s idle: RSS %.1f MiB"
                                + " (%.1f MiB anonymous + %.1f MiB file-backed; %.1f MiB right after the first publish,"
                                + " peak %.1f MiB), CPU %.2f ms per second over the first %.0f s (%d ticks of 10 ms) and"
                                + " %.2f ms per second over the next %.0f s (%d ticks); RSS then %.1f MiB; runtime %s; JVM flags: %s%n",
                        c.getStatus(), startupTicks / 100.0, seconds, rss / 1024.0, anon / 1024.0, file / 1024.0,
                        rssAfterStart / 1024.0, hwm / 1024.0, idleTicks * 10.0 / seconds, seconds, idleTicks,
                        steadyTicks * 10.0 / steadySeconds, steadySeconds, steadyTicks,
                        statusKb(agent.pid(), "VmRSS") / 1024.0, javaCommand(), String.join(" ", jvmFlags));
                Map<String, Long> threadsAfter = threadNanos(agent.pid());
                // The kernel's run time per thread in nanoseconds: 10 ms ticks are too coarse for ~1 ms/s.
                System.out.printf("BENCH idle precise: CPU %.2f ms per second over the first window and %.2f ms"
                                + " per second over the second (sum of /proc/<pid>/task/*/schedstat run times)%n",
                        (run1 - run0) / 1e6 / seconds, (runNanos(threadsAfter) - run1) / 1e6 / steadySeconds);
                if (Boolean.getBoolean("bench.diagnose")) {
                    threadsAfter.forEach((t, nanos) -> {
                        long first = threadsBetween.getOrDefault(t, 0L) - threadsBefore.getOrDefault(t, 0L);
                        long second = nanos - threadsBetween.getOrDefault(t, 0L);
                        if (first > 100_000 || second > 100_000) {
                            System.out.printf("BENCH idle thread %-28s %.1f / %.1f ms (1st / 2nd window)%n",
                                    t, first / 1e6, second / 1e6);
                        }
                    });
                    jcmd(agent.pid(), "GC.run");
                    System.out.println(jcmd(agent.pid(), "GC.heap_info"));
                    System.out.println(jcmd(agent.pid(), "VM.metaspace"));
                    jcmd(agent.pid(), "GC.class_histogram").lines().limit(30).forEach(System.out::println);
                }
                if (jvmFlags.stream().anyMatch(x -> x.startsWith("-XX:NativeMemoryTracking"))) {
                    System.out.println(jcmd(agent.pid(), "VM.native_memory", "summary"));
                }
            } finally {
                agent.destroy();
                // generous: a JVM that writes an AOT/CDS archive at exit (a training run) needs the time
                if (!agent.waitFor(120, TimeUnit.SECONDS)) {
                    agent.destroyForcibly();
                }
                System.out.println("BENCH idle: agent exit code after SIGTERM: " + agent.exitValue()
                        + "; Kubernetes client " + client + "; log: " + dir.resolve("agent.log"));
                if (inCluster != null) {
                    inCluster.close();
                }
            }
        }
    }

    /**
     * Start-up profile (not in the default set; {@code -Dbench.only=startup}): the shaded jar started as a
     * child process, in-cluster over HTTPS, {@code bench.startupRuns} times (default 5), each time on a
     * Node without the condition; prints, per run, the time from the process's spawn to the first condition
     * seen through a watch, the agent's CPU time at that moment and its log lines' offsets. With
     * {@code -Dbench.cpuLimit=<millicores>} each child runs in a cgroup of its own with that CFS quota per
     * 100 ms period, as the kubelet applies a CPU limit (cgroup v1 {@code cpu} or v2 {@code cpu.max}).
     * The images module's StartupBench measures the same thing in the real container; this one isolates the
     * JVM and the agent from containerd and runc, to compare flags and runtimes quickly.
     */
    @SuppressWarnings("checkstyle:methodlength") // one benchmark measurement, set up, run and printed in order
    static void startup(Vertx vertx, Path jar, List<String> jvmFlags) throws Exception {
        int runs = Integer.getInteger("bench.startupRuns", 5);
        int cpuLimit = Integer.getInteger("bench.cpuLimit", 0);
        Path dir = Files.createTempDirectory("crifresh-bench-startup");
        String marker = "/tmp/crifresh-bench-" + UUID.randomUUID();
        List<String> argv = new ArrayList<>(FakeContainerd.TALOS_CRI);
        argv.addAll(List.of("--root", marker));
        List<Double> millis = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        try (MockApi api = new MockApi(vertx); FakeContainerd containerd = FakeContainerd.start(argv);
             InCluster inCluster = new InCluster(vertx, api, dir, "bench-service-account-token")) {
            TalosFiles files = new TalosFiles(dir.resolve("host"));
            Instant boot = new dev.crifresh.agent.host.BootClockSampler(
                    dev.crifresh.agent.host.HostClock.system(Path.of("/proc")), 5).sample().bootWallTime();
            files.writeAll("token-0", boot.plusMillis(containerd.startTicks() * 10).minusSeconds(1));
            Path signing = Files.writeString(dir.resolve("signing.key"), Ed25519Keys.signingKeyPem(Ed25519Keys.generate()));
            Path fingerprint = Files.write(dir.resolve("fingerprint.key"), FINGERPRINT_KEY);
            String bootId = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            for (int run = 1; run <= runs; run++) {
                String node = NODE + "-" + run;
                api.createNode(node, bootId);
                Map<String, Long> seen = new ConcurrentHashMap<>();
                Watch watch = api.client().nodes().withName(node).watch(new Watcher<Node>() {
                    @Override
                    public void eventReceived(Action action, Node n) {
                        if (ours(n) != null) {
                            seen.putIfAbsent("first", System.nanoTime());
                        }
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                    }
                });
                List<String> command = new ArrayList<>();
                CpuCgroup cgroup = cpuLimit > 0 ? CpuCgroup.create("crifresh-bench-" + UUID.randomUUID(), cpuLimit) : null;
                if (cgroup != null) {
                    command.addAll(cgroup.wrap());
                }
                command.add(javaCommand());
                command.addAll(jvmFlags);
                command.addAll(List.of("-jar", jar.toString(), "run", "--node-name", node, "--proc-root", "/proc",
                        "--host-root", files.hostRoot().toString(), "--containerd-match",
                        ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker, "--signing-key", signing.toString(),
                        "--fingerprint-key", fingerprint.toString(), "--metrics-port", "0"));
                Path log = dir.resolve("agent-" + run + ".log");
                ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
                pb.environment().remove("KUBECONFIG");
                pb.environment().putAll(inCluster.env());
                pb.environment().put("MALLOC_ARENA_MAX", "2");
                long spawnWall = System.currentTimeMillis();
                long t0 = System.nanoTime();
                Process agent = pb.start();
                try {
                    Poll.until(Duration.ofMinutes(3), "the child agent's first publish", () -> seen.containsKey("first"));
                    double ms = (seen.get("first") - t0) / 1e6;
                    double cpuMs = runNanos(threadNanos(agent.pid())) / 1e6;
                    millis.add(ms);
                    cpu.add(cpuMs);
                    System.out.printf("BENCH startup run %d: spawn -> first condition %.0f ms, agent CPU then %.0f ms,"
                            + " RSS %.1f MiB%n", run, ms, cpuMs, statusKb(agent.pid(), "VmRSS") / 1024.0);
                    for (String line : Files.readAllLines(log)) {
                        int space = line.indexOf(' ');
                        if (space > 0 && line.length() > 10 && line.charAt(4) == '-' && line.charAt(10) == 'T') {
                            long at = java.time.OffsetDateTime.parse(line.substring(0, space)).toInstant().toEpochMilli();
                            System.out.printf("BENCH startup run %d:   +%5d ms %s%n", run, at - spawnWall,
                                    line.substring(space + 1, Math.min(line.length(), space + 140)));
                        }
                    }
                } finally {
                    watch.close();
                    agent.destroy();
                    if (!agent.waitFor(60, TimeUnit.SECONDS)) {
                        agent.destroyForcibly();
                    }
                    if (cgroup != null) {
                        cgroup.close();
                    }
                }
            }
        }
        Collections.sort(millis);
        Collections.sort(cpu);
        System.out.printf("BENCH startup: %d runs, CPU limit %s: spawn -> first condition median %.0f ms (min %.0f, max %.0f);"
                        + " agent CPU by then median %.0f ms (min %.0f, max %.0f); runtime %s; JVM flags: %s%n",
                runs, cpuLimit > 0 ? cpuLimit + "m" : "none", pct(millis, 50), millis.get(0), millis.get(millis.size() - 1),
                pct(cpu, 50), cpu.get(0), cpu.get(cpu.size() - 1), javaCommand(), String.join(" ", jvmFlags));
    }

    /** A cgroup with a CFS quota, as the kubelet sets a CPU limit; the child joins it before it execs java. */
    private record CpuCgroup(Path dir) implements AutoCloseable {
        static CpuCgroup create(String name, int millicores) throws java.io.IOException {
            long quota = millicores * 100L;
            Path v1 = Path.of("/sys/fs/cgroup/cpu");
            if (Files.exists(v1.resolve("cpu.cfs_quota_us"))) {
                Path dir = Files.createDirectory(v1.resolve(name));
                Files.writeString(dir.resolve("cpu.cfs_period_us"), "100000");
                Files.writeString(dir.resolve("cpu.cfs_quota_us"), Long.toString(quota));
                return new CpuCgroup(dir);
            }
            Path dir = Files.createDirectory(Path.of("/sys/fs/cgroup", name));
            Files.writeString(dir.resolve("cpu.max"), quota + " 100000");
            return new CpuCgroup(dir);
        }

        List<String> wrap() {
            return List.of("sh", "-c", "echo $$ > " + dir.resolve("cgroup.procs") + " && exec \"$@\"", "sh");
        }

        @Override
        public void close() throws java.io.IOException {
            for (int i = 0; i < 50 && !Files.readString(dir.resolve("cgroup.procs")).isBlank(); i++) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            Files.delete(dir);
        }
    }

    private static String jcmd(long pid, String... command) throws Exception {
        Path own = Path.of(javaCommand()).resolveSibling("jcmd");
        Path jcmd = Files.isExecutable(own) ? own : Path.of(System.getProperty("java.home"), "bin", "jcmd");
        List<String> args = new ArrayList<>(List.of(jcmd.toString(),
                Long.toString(pid)));
        args.addAll(List.of(command));
        Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /**
     * CPU time in nanoseconds per thread (tid:name) of the agent process, from {@code schedstat} (the
     * scheduler's exact run time). A thread that ends between two samples takes its time with it.
     */
    private static Map<String, Long> threadNanos(long pid) throws Exception {
        Map<String, Long> nanos = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String run = Files.readString(task.resolve("schedstat")).trim().split(" ")[0];
                    nanos.put(task.getFileName() + ":" + name, Long.parseLong(run));
                } catch (java.io.IOException e) {
                    // thread ended
                }
            }
        }
        return nanos;
    }

    private static long runNanos(Map<String, Long> threads) {
        return threads.values().stream().mapToLong(Long::longValue).sum();
    }

    private static long cpuTicks(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime (14) + stime (15)
    }

    private static long statusKb(long pid, String field) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException(field + " not in /proc/" + pid + "/status");
    }

    private static double pct(List<Double> sorted, int p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private static String metricLine(String scrape, String prefix) {
        return scrape.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse(prefix + " (absent)");
    }
}
