package dev.crifresh.agent.http;

import dev.crifresh.agent.loop.ProofFallback;
import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.common.evidence.WatchedFile;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The agent's metrics, one registry per agent (several agents share a JVM in the simulator). The
 * exposed names are a contract with the dashboard: Micrometer's Prometheus naming adds the
 * {@code _seconds} base unit and the counters' {@code _total}, so the meters below are named without them.
 */
public final class AgentMetrics {
    public static final String FRESH = "crifresh.node.fresh";
    public static final String CONTAINERD_START = "crifresh.containerd.start.timestamp";
    public static final String CONFIG_MTIME = "crifresh.config.mtime.timestamp";
    public static final String ATTESTATION_EXPIRY = "crifresh.attestation.expiry.timestamp";
    public static final String PUBLISHES = "crifresh.publishes";
    public static final String EVALUATIONS = "crifresh.evaluations";
    public static final String API_ERRORS = "crifresh.api.errors";
    public static final String DETECTION_LATENCY = "crifresh.detection.latency";
    public static final String PROOF_APPLIES = "crifresh.requested.proof.applies";
    public static final String PROOF_FALLBACKS = "crifresh.proof.fallbacks";
    public static final String NODE_REASON = "crifresh.node.reason";
    public static final String NODE_ROLLOUT = "crifresh.node.rollout";
    public static final String NODE_STALE_TAINT = "crifresh.node.stale.taint";
    public static final String NODE_REBOOT_NOT_CARRIED_OUT = "crifresh.node.reboot.not.carried.out";
    public static final String HEARTBEAT = "crifresh.heartbeat.timestamp";
    public static final String HEARTBEAT_INTERVAL = "crifresh.heartbeat.interval";
    /**
     * {@code crifresh_build_info{component, version, claims_version} 1}. Registered as a Prometheus Info metric:
     * Micrometer's naming would strip the reserved {@code _info} suffix from a gauge.
     */
    public static final String BUILD_INFO = "crifresh_build_info";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Value fresh = new Value(-1);
    private final Value containerdStart = new Value(Double.NaN);
    private final Value expiry = new Value(Double.NaN);
    private final Value heartbeat = new Value(Double.NaN);
    private final Value heartbeatInterval = new Value(Double.NaN);
    private final Map<String, Value> mtimes = new HashMap<>();
    private final Map<String, Meter.Id> mtimeGauges = new HashMap<>();
    private final Timer detectionLatency;
    private final Map<String, Value> proofApplies = new HashMap<>();
    private final Value rebootNotCarriedOut = new Value(0);
    private RolloutMarks marks = RolloutMarks.NONE;
    private Meter.Id rolloutGauge;
    private Meter.Id reasonGauge;
    private String reasonKey;
    private Meter.Id staleTaintGauge;

    /** A gauge's value; gauges reference it strongly through this registry-owned object. */
    private static final class Value {
        private volatile double value;

        Value(double initial) {
            value = initial;
        }
    }

    public AgentMetrics() {
        Gauge.builder(FRESH, fresh, v -> v.value)
                .description("1 when the running containerd loaded the current config, 0 stale, -1 unknown")
                .register(registry);
        Gauge.builder(CONTAINERD_START, containerdStart, v -> v.value).baseUnit("seconds")
                .description("Wall-clock start of the CRI containerd (Unix time)")
                .register(registry);
        Gauge.builder(ATTESTATION_EXPIRY, expiry, v -> v.value).baseUnit("seconds")
                .description("exp of the last published attestation (Unix time)")
                .register(registry);
        detectionLatency = Timer.builder(DETECTION_LATENCY)
                .description("From a config change seen by the agent to the condition written")
                .serviceLevelObjectives(Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
                        Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
                        Duration.ofSeconds(30))
                .register(registry);
        Gauge.builder(HEARTBEAT, heartbeat, v -> v.value).baseUnit("seconds")
                .description("When the agent last wrote its condition (Unix time): every heartbeat, or sooner on a change")
                .register(registry);
        Gauge.builder(HEARTBEAT_INTERVAL, heartbeatInterval, v -> v.value).baseUnit("seconds")
                .description("The agent's --heartbeat: the longest it waits between two condition writes")
                .register(registry);
        for (String result : List.of("success", "conflict", "error")) {
            publishes(result);
        }
        Gauge.builder(NODE_REBOOT_NOT_CARRIED_OUT, rebootNotCarriedOut, v -> v.value)
                .description("1 while the node carries crifresh.dev/reboot-not-carried-out (a run's reboot never happened)")
                .register(registry);
        buildInfo(registry, "agent");
    }

    /**
     * The coordinator's marks on the Node as last seen: {@code crifresh_node_rollout{run, phase}} is 1 while a run
     * holds the node (absent otherwise), {@code crifresh_node_stale_taint{run}} 1 while its stale taint is on.
     */
    public synchronized void nodeSeen(RolloutMarks seen) {
        if (seen.equals(marks)) {
            return;
        }
        if (!Objects.equals(seen.run(), marks.run()) || !Objects.equals(seen.phase(), marks.phase())) {
            rolloutGauge = replace(rolloutGauge, seen.run() == null ? null : Gauge.builder(NODE_ROLLOUT, () -> 1)
                    .tag("run", seen.run()).tag("phase", seen.phase())
                    .description("1 while a crifresh run holds the node (crifresh.dev/rollout = <run>/<phase>)"));
        }
        if (!Objects.equals(seen.staleTaintRun(), marks.staleTaintRun())) {
            staleTaintGauge = replace(staleTaintGauge, seen.staleTaintRun() == null ? null
                    : Gauge.builder(NODE_STALE_TAINT, () -> 1).tag("run", seen.staleTaintRun())
                            .description("1 while the node carries a run's crifresh.dev/stale taint"));
        }
        rebootNotCarriedOut.value = seen.rebootNotCarriedOut() ? 1 : 0;
        marks = seen;
    }

    private Meter.Id replace(Meter.Id old, Gauge.Builder<?> next) {
        if (old != null) {
            registry.remove(old);
        }
        return next == null ? null : next.register(registry).getId();
    }

    /** Registers {@link #BUILD_INFO} for this build: the release and the attestation claims version it writes. */
    private static void buildInfo(PrometheusMeterRegistry registry, String component) {
        Info.builder().name(BUILD_INFO)
                .help("The crifresh build: its version and the attestation claims version it writes (1 per process)")
                .labelNames("component", "version", "claims_version")
                .register(registry.getPrometheusRegistry())
                .addLabelValues(component, CrifreshVersion.current(), Integer.toString(AttestationClaims.VERSION));
    }

    /** The agent's {@code --heartbeat}, exported so an alert can tell a late heartbeat without knowing the flag. */
    public void heartbeatInterval(Duration interval) {
        heartbeatInterval.value = interval.toMillis() / 1000.0;
    }

    public synchronized void evaluated(Evaluation e, List<WatchedFile> files) {
        Counter.builder(EVALUATIONS).tag("verdict", e.verdict().wire()).tag("reason", e.reason().code())
                .description("Evaluations of the node by verdict and reason").register(registry).increment();
        fresh.value = e.verdict() == Verdict.FRESH ? 1 : e.verdict() == Verdict.STALE ? 0 : -1;
        String key = e.verdict().wire() + "/" + e.reason().code();
        if (!key.equals(reasonKey)) {
            reasonGauge = replace(reasonGauge, Gauge.builder(NODE_REASON, () -> 1)
                    .tag("verdict", e.verdict().wire()).tag("reason", e.reason().code())
                    .description("1 for the verdict and reason of the last evaluation (one series per node)"));
            reasonKey = key;
        }
        containerdStart.value = e.containerdStartedAt() == null ? Double.NaN : seconds(e.containerdStartedAt());
        Map<String, Double> now = new HashMap<>();
        files.stream().filter(WatchedFile::isReadable).forEach(f -> now.put(f.path(), seconds(f.mtime())));
        for (var it = mtimeGauges.entrySet().iterator(); it.hasNext(); ) {
            var gauge = it.next();
            if (!now.containsKey(gauge.getKey())) {
                registry.remove(gauge.getValue());
                mtimes.remove(gauge.getKey());
                it.remove();
            }
        }
        now.forEach((path, mtime) -> mtimes.computeIfAbsent(path, p -> {
            Value v = new Value(mtime);
            mtimeGauges.put(p, Gauge.builder(CONFIG_MTIME, v, x -> x.value).baseUnit("seconds").tag("path", p)
                    .description("Wall-clock mtime of a watched config file (Unix time)")
                    .register(registry).getId());
            return v;
        }).value = mtime);
    }

    /**
     * One evaluation with an opt-in proof requested ({@code requested}, e.g. runtime-status): its gauge is 1 when
     * the proof applied, 0 when it did not and {@code fallback} names the proof used instead (also counted).
     */
    public synchronized void proofRequested(String requested, ProofFallback fallback) {
        proofApplies.computeIfAbsent(requested, r -> {
            Value v = new Value(Double.NaN);
            Gauge.builder(PROOF_APPLIES, v, x -> x.value).tag("requested", r)
                    .description("1 when the requested proof applied in the last evaluation, 0 when the containerd"
                            + " could not give it and another proof was used")
                    .register(registry);
            return v;
        }).value = fallback == null ? 1 : 0;
        if (fallback != null) {
            Counter.builder(PROOF_FALLBACKS).tag("requested", requested).tag("used", fallback.used())
                    .description("Evaluations in which a requested proof did not apply, by the proof used instead")
                    .register(registry).increment();
        }
    }

    /** @param result conflict (a guarded patch was rejected and is retried) or error (waiting for the backoff) */
    public void publishFailed(String result) {
        publishes(result).increment();
    }

    /** A condition was written at {@code at} carrying an attestation that expires at {@code exp}. */
    public void publishSucceeded(Instant at, Instant exp) {
        expiry.value = seconds(exp);
        heartbeat.value = seconds(at);
        publishes("success").increment();
    }

    /** A condition was written at {@code at} as Unknown without an attestation: the node counts as unknown. */
    public void publishedWithoutAttestation(Instant at) {
        fresh.value = -1;
        heartbeat.value = seconds(at);
        publishes("success").increment();
    }

    /** @param operation get, patch or watch */
    public void apiError(String operation) {
        Counter.builder(API_ERRORS).tag("operation", operation)
                .description("Failed Kubernetes API calls by operation").register(registry).increment();
    }

    public void detectionLatency(Duration latency) {
        detectionLatency.record(latency);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    private Counter publishes(String result) {
        return Counter.builder(PUBLISHES).tag("result", result)
                .description("Condition publishes by result").register(registry);
    }

    private static double seconds(Instant t) {
        return t.getEpochSecond() + t.getNano() / 1e9;
    }
}
