package dev.crifresh.agent.cli;

import dev.crifresh.agent.AgentRuntime;
import dev.crifresh.agent.AgentSettings;
import dev.crifresh.agent.expire.ExpirySettings;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.kube.NodeApis;
import dev.crifresh.common.attest.AttestationPolicy;
import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.KeyFormatException;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.common.text.DurationText;
import dev.crifresh.common.text.IoErrors;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The DaemonSet mode: observe, publish the condition, serve metrics, until SIGTERM. */
@Command(name = "run", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        description = "Watch containerd and its config on this node and publish the signed condition.")
final class RunCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
    private static final long STOP_TIMEOUT_SECONDS = 15;
    static final long BLOCKED_THREAD_CHECK_MS = 5_000;

    @Spec
    CommandSpec spec;

    @Mixin
    HostOptions host;

    @Option(names = "--node-name", paramLabel = "NAME", defaultValue = "${env:NODE_NAME}",
            description = "This node's name (the downward API's spec.nodeName). Env NODE_NAME.")
    String nodeName;

    @Option(names = "--signing-key", paramLabel = "FILE", defaultValue = "${env:CRIFRESH_SIGNING_KEY}",
            description = "PEM with the Ed25519 PRIVATE KEY (PKCS#8) and its PUBLIC KEY. Env CRIFRESH_SIGNING_KEY.")
    Path signingKey;

    @Option(names = "--heartbeat", paramLabel = "DURATION", defaultValue = "${env:CRIFRESH_HEARTBEAT:-5m}",
            description = "Re-evaluate and re-publish at least this often. Env CRIFRESH_HEARTBEAT. Default: ${DEFAULT-VALUE}.")
    Duration heartbeat;

    @Option(names = "--validity", paramLabel = "DURATION", defaultValue = "${env:CRIFRESH_VALIDITY:-15m}",
            description = "Attestation lifetime, longer than the heartbeat and at most 1h (the coordinator's limit). Env CRIFRESH_VALIDITY. Default: ${DEFAULT-VALUE}.")
    Duration validity;

    @Option(names = "--proc-poll", paramLabel = "DURATION", defaultValue = "${env:CRIFRESH_PROC_POLL:-5s}",
            description = "How often containerd's stat and the files' attributes are polled. Env CRIFRESH_PROC_POLL."
                    + " Default: ${DEFAULT-VALUE}.")
    Duration procPoll;

    @Option(names = "--debounce", paramLabel = "DURATION", defaultValue = "${env:CRIFRESH_DEBOUNCE:-100ms}",
            description = "Wait after a file event before reading the config. Env CRIFRESH_DEBOUNCE. Default: ${DEFAULT-VALUE}.")
    Duration debounce;

    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "${env:CRIFRESH_METRICS_PORT:-9402}",
            description = "HTTP port for /metrics, /healthz, /readyz, /attestation; -1 disables it."
                    + " Env CRIFRESH_METRICS_PORT. Default: ${DEFAULT-VALUE}.")
    int metricsPort;

    @Option(names = "--expiry-lease", paramLabel = "NAMESPACE/NAME", defaultValue = "${env:CRIFRESH_EXPIRY_LEASE:-}",
            description = "Compete for this coordination.k8s.io Lease; while holding it, mark every Node's condition"
                    + " whose attestation expired Unknown/AttestationExpired (docs/design.md, \"A condition never outlives"
                    + " its proof\"). Empty: not a candidate. Env CRIFRESH_EXPIRY_LEASE.")
    String expiryLease;

    @Option(names = "--expiry-period", paramLabel = "DURATION", defaultValue = "${env:CRIFRESH_EXPIRY_PERIOD:-20s}",
            description = "How often the Lease holder renews it and looks at every Node, and the others try to take it."
                    + " Env CRIFRESH_EXPIRY_PERIOD. Default: ${DEFAULT-VALUE}.")
    Duration expiryPeriod;

    @Option(names = "--expiry-lease-duration", paramLabel = "DURATION",
            defaultValue = "${env:CRIFRESH_EXPIRY_LEASE_DURATION:-40s}",
            description = "How long a Lease its holder stopped renewing keeps the others out; whole seconds, at least"
                    + " two periods. An expired condition reads Unknown at most this plus one period after its exp."
                    + " Env CRIFRESH_EXPIRY_LEASE_DURATION. Default: ${DEFAULT-VALUE}.")
    Duration expiryLeaseDuration;

    @Option(names = "--pod-name", paramLabel = "NAME", defaultValue = "${env:POD_NAME:-}",
            description = "This pod's name, its identity in the expiry Lease (the downward API's metadata.name);"
                    + " default: the node's name. Env POD_NAME.")
    String podName;

    @Override
    public Integer call() throws Exception {
        AgentSettings settings = settings();
        ExpirySettings expiry = expirySettings(settings.nodeName());
        SigningKey key = signingKey();
        byte[] fingerprintKey = host.fingerprintKeyBytes(spec);
        if (fingerprintKey == null) {
            throw new ParameterException(spec.commandLine(),
                    "missing --fingerprint-key (or CRIFRESH_FINGERPRINT_KEY): registry fingerprints need it");
        }
        host.requireDirectories(spec);

        Vertx vertx = Vertx.vertx(vertxOptions());
        NodeApis client;
        try {
            client = NodeApis.standard(vertx, System.getenv());
        } catch (RuntimeException e) {
            vertx.close();
            spec.commandLine().getErr().println("crifresh-agent: cannot configure the Kubernetes client: " + e.getMessage());
            return 1;
        }
        LOG.info("[{}] Kubernetes API: {}", settings.nodeName(), client.description());
        if (expiry != null && client.expiryApi().isEmpty()) {
            client.close();
            vertx.close();
            spec.commandLine().getErr().println("crifresh-agent: --expiry-lease needs the in-cluster API client"
                    + " (a pod's service account); this agent uses " + client.description());
            return 1;
        }
        AgentRuntime runtime;
        try {
            runtime = AgentRuntime.start(vertx, client.api(), settings, key, fingerprintKey,
                    HostClock.system(settings.procRoot()), client.expiryApi().orElse(null), expiry)
                    .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            client.close();
            vertx.close();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            spec.commandLine().getErr().println("crifresh-agent: cannot start: " + cause.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("[{}] SIGTERM: stopping; the condition stays as last published", settings.nodeName());
            try {
                runtime.stop().toCompletionStage().toCompletableFuture().get(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("[{}] clean stop did not finish: {}", settings.nodeName(), e.toString());
            } finally {
                client.close();
                vertx.close();
                stopped.countDown();
            }
        }, "crifresh-shutdown"));
        stopped.await();
        return 0;
    }

    /**
     * One event loop, a few workers. The blocked-thread checker looks every 5 s instead of every second:
     * an idle agent should not wake up each second for it. A task that holds the event loop longer than
     * 2 s (Vert.x's limit) is still reported whenever a check falls in it, and always when it lasts 7 s.
     */
    static VertxOptions vertxOptions() {
        return new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(4).setInternalBlockingPoolSize(2)
                .setBlockedThreadCheckInterval(BLOCKED_THREAD_CHECK_MS);
    }

    AgentSettings settings() {
        if (nodeName == null || nodeName.isBlank()) {
            throw new ParameterException(spec.commandLine(), "missing --node-name (or NODE_NAME)");
        }
        requirePositive(heartbeat, "--heartbeat");
        requirePositive(validity, "--validity");
        requirePositive(procPoll, "--proc-poll");
        if (validity.compareTo(heartbeat) <= 0) {
            throw new ParameterException(spec.commandLine(), "--validity (" + DurationText.format(validity)
                    + ") must be longer than --heartbeat (" + DurationText.format(heartbeat)
                    + "), or the attestation expires between heartbeats");
        }
        if (validity.compareTo(AttestationPolicy.DEFAULT_MAX_VALIDITY) > 0) {
            throw new ParameterException(spec.commandLine(), "--validity " + DurationText.format(validity)
                    + " is longer than the " + DurationText.format(AttestationPolicy.DEFAULT_MAX_VALIDITY)
                    + " the coordinator accepts");
        }
        if (metricsPort < -1 || metricsPort > 65535) {
            throw new ParameterException(spec.commandLine(), "--metrics-port " + metricsPort + ": not a port (0-65535, or -1 for none)");
        }
        return new AgentSettings(nodeName, host.procRoot, host.hostRoot, host.watchGlobs(spec), host.matcher(spec),
                host.rules(spec), heartbeat, validity, procPoll, debounce, metricsPort, CrifreshVersion.current(),
                host.mounts(spec), host.generation(), host.criSocket, host.containerdIntrospection);
    }

    /** The expiry candidate's settings, or null when {@code --expiry-lease} is empty. */
    ExpirySettings expirySettings(String nodeName) {
        if (expiryLease == null || expiryLease.isBlank()) {
            return null;
        }
        String[] parts = expiryLease.split("/", -1);
        if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
            throw new ParameterException(spec.commandLine(), "--expiry-lease '" + expiryLease
                    + "': expected NAMESPACE/NAME");
        }
        String identity = podName == null || podName.isBlank() ? nodeName : podName;
        try {
            return new ExpirySettings(parts[0], parts[1], identity, expiryPeriod, expiryLeaseDuration);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--expiry-period " + DurationText.format(expiryPeriod)
                    + ", --expiry-lease-duration " + DurationText.format(expiryLeaseDuration) + ": " + e.getMessage());
        }
    }

    private SigningKey signingKey() {
        if (signingKey == null) {
            throw new ParameterException(spec.commandLine(), "missing --signing-key (or CRIFRESH_SIGNING_KEY)");
        }
        String pem;
        try {
            pem = Files.readString(signingKey, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(),
                    "--signing-key " + signingKey + ": cannot read: " + IoErrors.describe(e));
        }
        try {
            return Ed25519Keys.readSigningKeyPem(pem);
        } catch (KeyFormatException e) {
            throw new ParameterException(spec.commandLine(), "--signing-key " + signingKey + ": " + e.getMessage());
        }
    }

    private void requirePositive(Duration d, String flag) {
        if (d.isZero() || d.isNegative()) {
            throw new ParameterException(spec.commandLine(), flag + " must be longer than 0");
        }
    }
}
