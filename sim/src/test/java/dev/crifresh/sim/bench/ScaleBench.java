package dev.crifresh.sim.bench;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.coordinator.Coordinator;
import dev.crifresh.coordinator.CoordinatorOptions;
import dev.crifresh.coordinator.kube.DecoderWarmup;
import dev.crifresh.coordinator.kube.UnhandledErrors;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.base.MaxUnavailable;
import dev.crifresh.sim.bench.RolloutBench.Case;
import dev.crifresh.sim.kube.ApiOptions;
import dev.crifresh.sim.run.CoordinatorFlags;
import dev.crifresh.sim.run.OneShotAgentLauncher;
import dev.crifresh.sim.run.RealAgentLauncher;
import dev.crifresh.sim.run.SimRebootDriver;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioReader;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.world.SimulatedWorld;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.impl.VertxThread;
import io.vertx.core.internal.VertxBootstrap;
import io.vertx.core.spi.VertxThreadFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rollout at scale (docs/performance.md, issue 32): the real coordinator against a simulated cluster of
 * N nodes in which the stand-ins are cheap and measured. Around the coordinator: the simulation's mock API
 * server, its kubelets, evictions and reboots, and per node a one-shot attestation responder
 * ({@link OneShotAgentLauncher}: the agent's own evaluation and signer, once per boot) instead of a full agent
 * ({@code -Dbench.agents=real} runs the real agents instead). The coordinator gets a Vert.x and a client of
 * its own, whose threads are named {@code coordinator-…}, so its CPU time is told apart from the stand-ins'.
 *
 * <p>Per case it prints one table row: nodes, budget, the physical limit
 * {@code L = W_workers × (T_term + T_reboot + T_attest) + W_cp × (T_reboot + T_attest)} (worker waves of
 * {@code --max-unavailable} nodes, then the control planes one at a time; {@code T_attest} the measured
 * median from a node's return to its first attestation of the new boot), the measured rollout, the ratio, the
 * coordinator threads' CPU time per node rolled, the JVM's peak heap and the load average; then CPU per
 * thread group (the stand-ins' included), the API server's requests and CPU per request, and the per-node
 * step medians. Prints, asserts nothing.
 *
 * <p>System properties: {@code bench.cases} ({@code nodes:budget,…}, default {@code 30:4,300:25%,1000:25%}),
 * {@code bench.staleFraction} (0.5, the control planes included), {@code bench.controlPlanes} (3, all stale),
 * {@code bench.rebootMillis} (3000), {@code bench.pods} (3 evictable pods per stale worker),
 * {@code bench.podTerminationMillis} (50), {@code bench.agents} ({@code oneshot} | {@code real}),
 * {@code bench.rounds} (1), {@code bench.jfr} (a folder: record each case with JFR and print its top costs).
 */
@SuppressWarnings("checkstyle:filelength") // one benchmark program
public final class ScaleBench {
    static final String COORDINATOR = "coordinator-";
    static final String SIMULATION = "sim-";
    /** The header the coordinator's client sends, so the API server's requests can be told apart. */
    static final String CLIENT_HEADER = "X-Crifresh-Bench-Client";
    static final String COORDINATOR_CLIENT = "coordinator";

    record Row(Case c, int stale, int staleWorkers, int cps, int budget, int waves, double attestSeconds,
            double limitSeconds, double measuredSeconds, double coordinatorCpuSeconds, long peakHeap,
            long peakLive, String loadStart, String loadEnd, String result) {
        double ratio() {
            return measuredSeconds / limitSeconds;
        }

        String table() {
            return String.format(Locale.ROOT, "| %d | %d (%d workers, %d cp) | %s (%d) | %d | %.2f s | %.2f s | **%.2f×** | %.1f ms | %d MiB (live %d MiB) | %s → %s |%s",
                    c.nodes(), stale, staleWorkers, cps, c.budget(), budget, waves, limitSeconds, measuredSeconds,
                    ratio(), 1000 * coordinatorCpuSeconds / Math.max(1, stale), peakHeap >> 20, peakLive >> 20,
                    loadStart, loadEnd, "succeeded".equals(result) ? "" : " " + result + " |");
        }
    }

    public static void main(String[] args) throws Exception {
        List<Case> cases = RolloutBench.cases(System.getProperty("bench.cases", "30:4,300:25%,1000:25%"));
        double staleFraction = Double.parseDouble(System.getProperty("bench.staleFraction", "0.5"));
        int controlPlanes = Integer.getInteger("bench.controlPlanes", 3);
        Duration reboot = Duration.ofMillis(Long.getLong("bench.rebootMillis", 3000));
        int pods = Integer.getInteger("bench.pods", 3);
        Duration termination = Duration.ofMillis(Long.getLong("bench.podTerminationMillis", 50));
        boolean real = "real".equals(System.getProperty("bench.agents", "oneshot"));
        int rounds = Integer.getInteger("bench.rounds", 1);
        String jfr = System.getProperty("bench.jfr", "");

        System.out.printf(Locale.ROOT, "scale bench: %s agents, stale fraction %.2f (%d stale control planes), reboot %d ms,"
                        + " %d evictable pods per stale worker, pod termination %d ms, %d cores, Java %s, max heap %d MiB%n",
                real ? "real" : "one-shot", staleFraction, controlPlanes, reboot.toMillis(), pods, termination.toMillis(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        List<Row> rows = new ArrayList<>();
        for (Case c : cases) {
            for (int round = 0; round < rounds; round++) {
                Path recording = jfr.isEmpty() ? null
                        : Files.createDirectories(Path.of(jfr)).resolve("scale-" + c.nodes() + "-" + round + ".jfr");
                Row row = run(c, staleFraction, controlPlanes, reboot, pods, termination, real, recording);
                rows.add(row);
            }
        }
        System.out.println();
        System.out.println("| nodes | stale | max-unavailable | waves | physical limit | measured | ratio | coordinator CPU per node | peak heap (JVM) | load average |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        rows.forEach(r -> System.out.println(r.table()));
        System.exit(0);
    }

    @SuppressWarnings("checkstyle:methodlength") // one benchmark measurement, set up, run and printed in order
    private static Row run(Case c, double staleFraction, int controlPlanes, Duration reboot, int pods,
            Duration termination, boolean real, Path recording) throws Exception {
        Scenario scenario = scenario(c, staleFraction, controlPlanes, reboot, pods, termination);
        int stale = (int) Math.round(c.nodes() * staleFraction);
        int staleWorkers = stale - controlPlanes;
        int budget = MaxUnavailable.parse(c.budget()).budget(c.nodes());
        int workerWaves = (staleWorkers + budget - 1) / budget;
        int waves = workerWaves + controlPlanes;

        Vertx simVertx = UnhandledErrors.on(named(SIMULATION));
        Vertx coordinatorVertx = UnhandledErrors.on(named(COORDINATOR));
        ExecutorService coordinatorTasks = Executors.newCachedThreadPool(daemon(COORDINATOR + "fabric8-"));
        Map<String, Instant> rebootedAt = new ConcurrentHashMap<>();
        Map<String, Long> rebootedNanos = new ConcurrentHashMap<>();
        /** When each node's last pod eviction was accepted by the API server. */
        Map<String, Long> evictedNanos = new ConcurrentHashMap<>();
        Map<String, Duration> attest = new ConcurrentHashMap<>();
        RequestCounter requests = new RequestCounter();
        SimulatedWorld cluster = null;
        KubernetesClient client = null;
        try {
            long prepare = System.nanoTime();
            cluster = SimulatedWorld.create(scenario, simVertx, (api, keys) -> real
                    ? new RealAgentLauncher(simVertx, api.inCluster().podEnvironment(), keys,
                            RealAgentLauncher.procPollFor(c.nodes()))
                    : new OneShotAgentLauncher(api.client(), keys), new ApiOptions(d -> requests.wrap(d)));
            cluster.onEvent(e -> {
                if (e.kind() == SimEvent.Kind.REBOOTED) {
                    rebootedAt.put(e.node(), e.at());
                    rebootedNanos.put(e.node(), System.nanoTime());
                } else if (e.kind() == SimEvent.Kind.POD_EVICTED && e.node() != null) {
                    evictedNanos.put(e.node(), System.nanoTime());
                }
            });
            cluster.startAgents();
            cluster.awaitAgentsPublished(Duration.ofSeconds(120));
            System.out.printf(Locale.ROOT, "%d nodes ready in %.1f s%n", c.nodes(), (System.nanoTime() - prepare) / 1e9);
            Watch watch = cluster.client().nodes().watch(attestWatcher(rebootedAt, attest));
            client = coordinatorClient(coordinatorVertx, cluster, coordinatorTasks);
            List<RolloutBench.Stamped> progress = new CopyOnWriteArrayList<>();
            // with a recording, the progress lines also go to a file as they come (a run that hangs shows where)
            java.io.PrintStream live = recording == null ? null : new java.io.PrintStream(
                    Files.newOutputStream(Path.of(recording.toString().replace(".jfr", ".progress.txt"))), true);
            long[] startedAt = {System.nanoTime()};
            Coordinator coordinator = new Coordinator(coordinatorVertx, client, cluster.keys().trust(),
                    CoordinatorFlags.desired(scenario), CoordinatorFlags.settings(scenario), new SimRebootDriver(cluster),
                    line -> {
                        progress.add(new RolloutBench.Stamped(System.nanoTime(), line));
                        if (live != null) {
                            live.printf(Locale.ROOT, "%9.3f %s%n", (System.nanoTime() - startedAt[0]) / 1e9, line);
                        }
                    }, CoordinatorOptions.gates(CoordinatorFlags.gates(scenario, cluster)));
            System.gc();
            String loadStart = RolloutBench.loadAverage();
            requests.reset();
            requests.trace(recording != null);
            JfrProfile profile = recording == null ? null : new JfrProfile(recording);
            ThreadCpu cpu = new ThreadCpu(ScaleBench::group);
            long start = System.nanoTime();
            startedAt[0] = start;
            requests.startAt(start);
            cluster.beginRun();
            Report report = coordinator.rollout().toCompletionStage().toCompletableFuture()
                    .get(30, TimeUnit.MINUTES);
            double measured = (System.nanoTime() - start) / 1e9;
            cpu.close();
            if (profile != null) {
                profile.close();
            }
            String loadEnd = RolloutBench.loadAverage();
            watch.close();
            List<Double> attests = attest.values().stream().map(d -> d.toNanos() / 1e9).sorted().toList();
            double attestMedian = RolloutBench.percentile(attests, 0.5);
            double perWave = reboot.toNanos() / 1e9 + attestMedian;
            double limit = workerWaves * (termination.toNanos() / 1e9 + perWave) + controlPlanes * perWave;
            Map<String, Double> seconds = cpu.seconds();
            String result = report.result() == Result.SUCCEEDED ? "succeeded"
                    : report.result() + ": " + report.error();
            Row row = new Row(c, stale, staleWorkers, controlPlanes, budget, waves, attestMedian, limit, measured,
                    seconds.getOrDefault("coordinator", 0.0), cpu.peakHeapBytes(), cpu.peakLiveHeapBytes(),
                    loadStart, loadEnd, result);
            System.out.printf(Locale.ROOT, "%s%n    attest median %.3f s (p90 %.3f s); %s%n", row.table(), attestMedian,
                    RolloutBench.percentile(attests, 0.9), result);
            System.out.print("    CPU seconds by thread group:");
            seconds.forEach((g, s) -> System.out.printf(Locale.ROOT, " %s %.2f;", g, s));
            System.out.println();
            double apiCpu = seconds.getOrDefault("api-server", 0.0);
            System.out.printf(Locale.ROOT, "    API server: %d requests, %.3f ms CPU per request (its threads); by client and path:%s%n",
                    requests.total(), 1000 * apiCpu / Math.max(1, requests.total()), requests.summary());
            System.out.printf(Locale.ROOT, "    per node, median: %s%n",
                    RolloutBench.Phases.of(start, progress, reboot));
            System.out.printf(Locale.ROOT, "    the simulation's return: %s%n", returnLag(progress, rebootedNanos, reboot));
            System.out.printf(Locale.ROOT, "    the drain: %s%n", drainSplit(progress, evictedNanos));
            if (live != null) {
                live.close();
                System.out.println("    progress lines with their time since the start: "
                        + recording.toString().replace(".jfr", ".progress.txt"));
                Path traced = Path.of(recording.toString().replace(".jfr", ".requests.txt"));
                Files.write(traced, requests.traced());
                System.out.println("    the coordinator's requests with their time since the start: " + traced);
            }
            if (profile != null) {
                profile.print(ScaleBench::group, List.of("coordinator", "api-server", "simulation"), 15);
            }
            return row;
        } finally {
            if (client != null) {
                client.close();
            }
            if (cluster != null) {
                cluster.close();
            }
            coordinatorTasks.shutdownNow();
            coordinatorVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            simVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static final java.util.regex.Pattern PROGRESS = java.util.regex.Pattern.compile("\\[\\d+/\\d+\\] (\\S+) (.*)");

    /** When each node's first progress line whose text (after "[i/n] node ") passes {@code step} came. */
    private static Map<String, Long> firstLines(List<RolloutBench.Stamped> progress, java.util.function.Predicate<String> step) {
        Map<String, Long> first = new java.util.HashMap<>();
        for (RolloutBench.Stamped s : progress) {
            java.util.regex.Matcher m = PROGRESS.matcher(s.line());
            if (m.matches() && step.test(m.group(2))) {
                first.putIfAbsent(m.group(1), s.nanos());
            }
        }
        return first;
    }

    /**
     * Which part of "reboot requested → back" is the simulation's: from the coordinator's "reboot requested" line to
     * the simulated node's reboot completing (its Ready and new boot id about to be posted), less the reboot time;
     * and from there to the coordinator's "back with a new boot id" line (the kubelet's post, the watch event, the
     * coordinator). Medians over the nodes.
     */
    static String returnLag(List<RolloutBench.Stamped> progress, Map<String, Long> rebootedNanos, Duration reboot) {
        Map<String, Long> requested = firstLines(progress, t -> t.startsWith("reboot requested"));
        Map<String, Long> back = firstLines(progress, t -> t.startsWith("back with a new boot id"));
        List<Double> late = new ArrayList<>();
        List<Double> seen = new ArrayList<>();
        requested.forEach((node, at) -> {
            Long done = rebootedNanos.get(node);
            if (done != null) {
                late.add((done - at - reboot.toNanos()) / 1e6);
                if (back.containsKey(node)) {
                    seen.add((back.get(node) - done) / 1e6);
                }
            }
        });
        return String.format(Locale.ROOT, "reboot completed %.0f ms after the reboot time (median; max %.0f ms);"
                        + " the coordinator saw the node back %.0f ms after that (median; max %.0f ms)",
                RolloutBench.percentile(late.stream().sorted().toList(), 0.5), RolloutBench.percentile(late.stream().sorted().toList(), 1.0),
                RolloutBench.percentile(seen.stream().sorted().toList(), 0.5), RolloutBench.percentile(seen.stream().sorted().toList(), 1.0));
    }

    /**
     * Where a drain's time goes: from the coordinator's "cordoned" line to the API server accepting the node's last
     * eviction (the coordinator's pod list and eviction calls), and from there to its "drained" line (the pods'
     * simulated termination and deletion, the pod watch's event, the coordinator). Medians over the nodes.
     */
    static String drainSplit(List<RolloutBench.Stamped> progress, Map<String, Long> evictedNanos) {
        Map<String, Long> cordoned = firstLines(progress, t -> t.startsWith("cordoned") || t.startsWith("already cordoned"));
        Map<String, Long> drained = firstLines(progress, t -> t.equals("drained"));
        List<Double> toEvicted = new ArrayList<>();
        List<Double> toDrained = new ArrayList<>();
        evictedNanos.forEach((node, at) -> {
            if (cordoned.containsKey(node) && drained.containsKey(node)) {
                toEvicted.add((at - cordoned.get(node)) / 1e6);
                toDrained.add((drained.get(node) - at) / 1e6);
            }
        });
        List<Double> a = toEvicted.stream().sorted().toList();
        List<Double> b = toDrained.stream().sorted().toList();
        return String.format(Locale.ROOT, "last eviction accepted %.0f ms after the cordon (median; max %.0f ms);"
                        + " drained %.0f ms after that (median; max %.0f ms)",
                RolloutBench.percentile(a, 0.5), RolloutBench.percentile(a, 1.0), RolloutBench.percentile(b, 0.5),
                RolloutBench.percentile(b, 1.0));
    }

    /**
     * The client the CLI builds (its request timeout, no retries, decoders built first), on the coordinator's
     * own Vert.x and task threads.
     */
    private static KubernetesClient coordinatorClient(Vertx vertx, SimulatedWorld cluster, ExecutorService tasks) {
        KubernetesSerialization serialization = new KubernetesSerialization(JsonMapper.builder().build(), false);
        DecoderWarmup.run(serialization);
        return new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(cluster.client().getConfiguration()).withRequestTimeout(10_000)
                        .withRequestRetryBackoffLimit(0).withCustomHeaders(Map.of(CLIENT_HEADER, COORDINATOR_CLIENT)).build())
                .withHttpClientFactory(new Vertx5HttpClientFactory(vertx))
                .withKubernetesSerialization(serialization)
                .withTaskExecutor(tasks)
                .build();
    }

    /** Which part of the benchmark a thread belongs to, by its name. */
    static String group(String thread) {
        if (thread.startsWith(COORDINATOR)) {
            return "coordinator";
        }
        if (thread.startsWith(SIMULATION) || thread.startsWith("crifresh-sim-") || thread.startsWith("mock-api-")) {
            return "simulation";
        }
        if (thread.startsWith("vert.x-")) {
            // the mock web server makes a Vert.x of its own, with Vert.x's default thread names
            return "api-server";
        }
        if (thread.contains("Compiler") || thread.startsWith("C1 ") || thread.startsWith("C2 ")) {
            return "jit";
        }
        if (thread.startsWith("GC ") || thread.startsWith("G1 ") || thread.equals("VM Thread")) {
            return "gc+vm";
        }
        if (thread.startsWith("bench-") || thread.equals("main") || thread.startsWith("JFR")) {
            return "bench";
        }
        return "other";
    }

    /** A Vert.x whose threads' names start with {@code prefix}. */
    private static Vertx named(String prefix) {
        return VertxBootstrap.create().options(new VertxOptions())
                .threadFactory(new VertxThreadFactory() {
                    @Override
                    public VertxThread newVertxThread(Runnable target, String name, boolean worker, long maxExecTime,
                            TimeUnit unit) {
                        return new VertxThread(target, prefix + name, worker, maxExecTime, unit);
                    }
                })
                .init().vertx();
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Records, per node that came back ({@code rebootedAt}), when its first attestation of the new boot was seen. */
    static Watcher<Node> attestWatcher(Map<String, Instant> rebootedAt, Map<String, Duration> attest) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, Node node) {
                String name = node.getMetadata().getName();
                Instant back = rebootedAt.get(name);
                if (back == null || attest.containsKey(name)) {
                    return;
                }
                AttestationClaims claims = RolloutBench.claims(node);
                if (claims != null && node.getStatus().getNodeInfo().getBootID().equals(claims.bootId())) {
                    attest.put(name, Duration.between(back, Instant.now()));
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        };
    }

    /**
     * {@code controlPlanes} stale control planes ({@code cp-1}…) and workers; stale workers (config written after
     * containerd started, {@code pods} evictable pods each) spread evenly, the rest fresh. A scenario file
     * (docs/scenarios.md), so every other field keeps its documented default (the etcd check included).
     */
    static Scenario scenario(Case c, double staleFraction, int controlPlanes, Duration reboot, int pods,
            Duration termination) throws dev.crifresh.sim.scenario.ScenarioException {
        int workers = c.nodes() - controlPlanes;
        int staleWorkers = (int) Math.round(c.nodes() * staleFraction) - controlPlanes;
        StringBuilder yaml = new StringBuilder()
                .append("coordinator: {maxUnavailable: \"").append(c.budget()).append("\", configTimeoutSeconds: 10,")
                .append(" rebootTimeoutSeconds: 120, attestTimeoutSeconds: 120}\n")
                .append("simulation: {rebootMillis: ").append(reboot.toMillis())
                .append(", podTerminationMillis: ").append(termination.toMillis()).append("}\n")
                .append("nodes:\n");
        for (int i = 1; i <= controlPlanes; i++) {
            yaml.append(String.format(Locale.ROOT, "  - {name: cp-%d, role: control-plane, containerdStartedSecondsAfterBoot: 6,"
                    + " configWrittenSecondsAfterBoot: 600}%n", i));
        }
        int staleSoFar = 0;
        for (int i = 0; i < workers; i++) {
            boolean isStale = (long) (i + 1) * staleWorkers / workers > staleSoFar;
            if (isStale) {
                staleSoFar++;
            }
            yaml.append(String.format(Locale.ROOT, "  - {name: worker-%04d, containerdStartedSecondsAfterBoot: 6,"
                    + " configWrittenSecondsAfterBoot: %d, pods: %d}%n", i, isStale ? 600 : 3, isStale ? pods : 0));
        }
        return ScenarioReader.parse(yaml.toString());
    }

    /** Counts the API server's requests by method (watches apart). */
    static final class RequestCounter {
        private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        /** With a recording: every request of the coordinator, in order (time since {@link #reset}, method, path, body). */
        private final java.util.Queue<String> trace = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private volatile long since = System.nanoTime();
        private volatile boolean tracing;

        Dispatcher wrap(Dispatcher inner) {
            return new Dispatcher() {
                @Override
                public MockResponse dispatch(RecordedRequest request) {
                    String body = tracing ? body(request) : ""; // read before the server consumes it
                    MockResponse response = inner.dispatch(request);
                    int code = response == null ? 0 : response.code();
                    String kind = kind(request);
                    counts.computeIfAbsent(kind + (code >= 400 ? " → " + code : ""), k -> new LongAdder()).increment();
                    if (tracing && kind.startsWith("coordinator ")) {
                        trace.add(String.format(Locale.ROOT, "%9.3f %d %s %s %s", (System.nanoTime() - since) / 1e9, code,
                                request.getMethod(), request.getPath(), body));
                    }
                    return response;
                }

                @Override
                public void shutdown() {
                    inner.shutdown();
                }

                @Override
                public void releaseResources() {
                    inner.releaseResources();
                }
            };
        }

        /** "client METHOD resource[/name][/subresource]", e.g. "coordinator GET nodes/NAME". */
        static String kind(RecordedRequest request) {
            String target = request.getPath() == null ? "" : request.getPath();
            int q = target.indexOf('?');
            String path = q < 0 ? target : target.substring(0, q);
            boolean watch = target.contains("watch=true") || target.contains("watch=1") || path.contains("/watch/");
            String[] parts = path.replaceFirst("^/apis?/([^/]+/)?v[^/]*/", "").replace("watch/", "").split("/");
            int i = parts.length > 1 && "namespaces".equals(parts[0]) ? 2 : 0;
            String resource = i < parts.length ? parts[i] : path;
            String rest = i + 1 < parts.length ? "/NAME" + (i + 2 < parts.length ? "/" + parts[i + 2] : "") : "";
            String client = COORDINATOR_CLIENT.equals(request.getHeader(CLIENT_HEADER)) ? "coordinator" : "stand-ins";
            return client + " " + (watch ? "WATCH" : request.getMethod()) + " " + resource + rest
                    + (q >= 0 && target.contains("fieldSelector") ? "?fieldSelector" : "");
        }

        void reset() {
            counts.values().forEach(LongAdder::reset);
            trace.clear();
            since = System.nanoTime();
        }

        /** The time the traced requests count from (the progress lines' start). */
        void startAt(long nanos) {
            since = nanos;
        }

        void trace(boolean on) {
            tracing = on;
        }

        /** The traced requests, one a line. */
        List<String> traced() {
            return List.copyOf(trace);
        }

        /** A patch's body, or an Event's reason, object and message, on one line (abbreviated). */
        private static String body(RecordedRequest request) {
            String b = request.getBody() == null ? "" : new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (b.isEmpty() || "GET".equals(request.getMethod())) {
                return "";
            }
            String one = b.replaceAll("\\s+", " ");
            if (request.getPath() != null && request.getPath().contains("/events")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"reason\"\\s*:\\s*\"([^\"]*)\"").matcher(one);
                java.util.regex.Matcher o = java.util.regex.Pattern.compile("\"involvedObject\"\\s*:\\s*\\{[^}]*\"name\"\\s*:\\s*\"([^\"]*)\"").matcher(one);
                return (m.find() ? m.group(1) : "?") + " " + (o.find() ? o.group(1) : "?");
            }
            return one.length() > 300 ? one.substring(0, 300) + "…" : one;
        }

        long total() {
            return counts.values().stream().mapToLong(LongAdder::sum).sum();
        }

        String summary() {
            StringBuilder b = new StringBuilder();
            counts.entrySet().stream().filter(e -> e.getValue().sum() > 0)
                    .sorted((x, y) -> Long.compare(y.getValue().sum(), x.getValue().sum()))
                    .forEach(e -> b.append("\n      ").append(e.getValue().sum()).append(' ').append(e.getKey()));
            return b.toString();
        }
    }
}
