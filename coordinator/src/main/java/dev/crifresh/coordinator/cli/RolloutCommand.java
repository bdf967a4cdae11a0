package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.Coordinator;
import dev.crifresh.coordinator.CoordinatorOptions;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.base.DrainRules;
import dev.crifresh.coordinator.base.LeaseSettings;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.driver.CommandDriver;
import dev.crifresh.coordinator.driver.CommandTemplate;
import dev.crifresh.coordinator.driver.ProcessRunner;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.driver.TalosctlDriver;
import dev.crifresh.coordinator.report.Pushgateway;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.RolloutMetrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

@Command(name = "rollout", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        description = {"Reboot exactly the nodes whose containerd has not loaded the desired credential, safely, then verify them.",
            "Exit 0 all fresh, 1 a node failed, 2 usage or configuration (also an unknown context, TLS failure, 401 or 403), 3 timed out waiting, 4 rollout lock held by another run or lost, 5 API server unreachable, 6 no selected node attests its boot (--allow-no-attestations)."})
public final class RolloutCommand implements Callable<Integer>, UsageChecked {
    public enum DriverKind { talosctl, command }

    @Spec
    CommandSpec spec;

    @Mixin
    ReportOptions options;

    @Mixin
    GateOptions gateOptions;

    @Mixin
    SilenceOptions silence;

    @Option(names = "--namespace", paramLabel = "NS", defaultValue = LeaseSettings.DEFAULT_NAMESPACE,
            description = "Namespace of the rollout Lease crifresh-rollout (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--max-unavailable", paramLabel = "N|P%", defaultValue = "1",
            description = "Workers unavailable at once, counting nodes already NotReady or cordoned: a count or a percentage of the selected nodes, rounded down, at least 1 (default: ${DEFAULT-VALUE}).")
    String maxUnavailable;

    @Option(names = "--action", paramLabel = "reboot|none|auto", defaultValue = "reboot", converter = ActionConverter.class,
            description = "reboot stale nodes; none: only wait for them to turn fresh (Talos >= 1.14 restarts containerd itself); "
                    + "auto: per node from its Talos version, wait on >= 1.14, reboot the others (default: ${DEFAULT-VALUE}).")
    Action action;

    @Option(names = "--reboot-driver", paramLabel = "talosctl|command", defaultValue = "talosctl",
            description = "How to reboot a node (default: ${DEFAULT-VALUE}).")
    DriverKind driver;

    @Option(names = "--reboot-command", paramLabel = "TEMPLATE",
            description = "With --reboot-driver command: the command, split into words without a shell; {node} and {ip} (the InternalIP) are substituted.")
    String rebootCommand;


    @Option(names = "--driver-timeout", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
            description = "How long one reboot request may take (default: ${DEFAULT-VALUE}).")
    Duration driverTimeout;

    @Option(names = "--config-timeout", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "How long config-pending nodes may take to hold the desired credential before the run stops, exit 3 (default: ${DEFAULT-VALUE}).")
    Duration configTimeout;

    @Option(names = "--drain-timeout", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
            description = "How long one node's drain may take, PDB-blocked evictions included (default: ${DEFAULT-VALUE}).")
    Duration drainTimeout;

    @Option(names = "--force", defaultValue = "false",
            description = "Also evict pods that declare no controller; evicted, such a pod is gone for good (kubectl drain's --force). "
                    + "Without it a node running one is not rolled and the run fails at its end.")
    boolean force;

    @Option(names = "--delete-emptydir-data", defaultValue = "false",
            description = "Also evict pods with emptyDir volumes; their data is lost (kubectl drain's --delete-emptydir-data). "
                    + "Without it a node running one is not rolled and the run fails at its end.")
    boolean deleteEmptyDirData;

    @Option(names = "--self-node", paramLabel = "NODE",
            description = "The node this coordinator runs on (a self-hosted runner's): never rolled by this run (default: $NODE_NAME).")
    String selfNode;

    @Option(names = "--self-pod", paramLabel = "NAMESPACE/NAME",
            description = "This coordinator's own pod: never evicted (default: $POD_NAMESPACE/$POD_NAME).")
    String selfPod;

    @Option(names = "--reboot-timeout", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
            description = "How long a rebooted node may take to return Ready with a new boot id (default: ${DEFAULT-VALUE}).")
    Duration rebootTimeout;

    @Option(names = "--stall-timeout", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
            description = "How long the run may find no node able to start (budget used up by unavailable nodes, another control plane NotReady) before it stops, exit 3; also how long a drained node may wait to be let reboot before it is released (default: ${DEFAULT-VALUE}).")
    Duration stallTimeout;

    @Option(names = "--attest-timeout", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "How long a returned node (with --action none: a stale node) may take to attest fresh (default: ${DEFAULT-VALUE}).")
    Duration attestTimeout;

    @Option(names = "--lock-timeout", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "How long to wait for another run's rollout lock before exit 4 (default: ${DEFAULT-VALUE}).")
    Duration lockTimeout;

    @Option(names = "--lease-duration", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "Duration of the rollout Lease, renewed every third of it (default: ${DEFAULT-VALUE}).")
    Duration leaseDuration;

    @Option(names = "--run-id", paramLabel = "ID", description = "This run's id in the ownership annotations and the Lease (default: random).")
    String runId;

    @Option(names = "--pushgateway", paramLabel = "URL", description = "Push the run's crifresh_rollout_* metrics to this Prometheus Pushgateway at the end.")
    String pushgateway;

    /** The usage checks {@link #call} runs before it connects; throws {@link UsageException}. */
    @Override
    public void checkUsage() {
        CoordinatorSettings settings = settings();
        rebootDriver();
        gateOptions.wiring();
        if (action == Action.REBOOT) {
            silence.settings(settings.lease().runId(), rebootTimeout, attestTimeout);
        }
    }

    @Override
    public Integer call() throws Exception {
        CoordinatorSettings settings = settings();
        RebootDriver rebootDriver = rebootDriver();
        var gates = gateOptions.wiring();
        // usage mistakes (exit 2) before anything connects; action none takes no node down and needs no silence
        boolean silencing = action == Action.REBOOT
                && silence.settings(settings.lease().runId(), rebootTimeout, attestTimeout).isPresent();
        var err = spec.commandLine().getErr();
        Instant started = Instant.now();
        try (Session session = Session.open(options, spec, settings, ApiPreflight.rollout(namespace),
                ApiPreflight.rolloutPermissions(namespace, action != Action.NONE))) {
            Coordinator coordinator = session.coordinator(settings, rebootDriver, new CoordinatorOptions(gates,
                    silencing ? silence.silences(session.vertx, Clock.systemUTC(), settings.lease().runId(), rebootTimeout,
                            attestTimeout) : null, null));
            CompletableFuture<Report> result = coordinator.rollout().toCompletionStage().toCompletableFuture();
            CountDownLatch written = new CountDownLatch(1);
            // SIGTERM (a cancelled job): stop starting work, release the Lease, and let the report be written.
            Thread hook = new Thread(() -> {
                coordinator.stop();
                try {
                    result.get(15, TimeUnit.SECONDS);
                    written.await(10, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // the process is going away
                }
            }, "crifresh-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            Report report;
            try {
                report = Session.await(result).withCluster(session.target.ref());
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running and stops the coordinator
                }
            }
            try {
                options.write("rollout", report, spec.commandLine().getOut(), err);
                if (pushgateway != null) {
                    push(session, report, started, session.log(settings));
                }
            } finally {
                written.countDown();
            }
            return report.exitCode();
        }
    }

    private void push(Session session, Report report, Instant started, RunLog log) {
        try {
            Session.await(Pushgateway.push(session.vertx, pushgateway,
                    RolloutMetrics.render(report, Duration.between(started, Instant.now()), Instant.now())));
        } catch (Exception e) {
            log.log(ProgressListener.Level.WARN,
                    "warning: could not push metrics to " + pushgateway + ": " + e.getMessage());
        }
    }

    CoordinatorSettings settings() {
        try {
            DrainRules drain = SelfLocation.apply(new DrainRules(force, deleteEmptyDirData, null, null), selfNode, selfPod,
                    System.getenv());
            return Settings.of(options, b -> {
                b.leaseNamespace(namespace)
                        .maxUnavailable(maxUnavailable)
                        .action(action)
                        .configTimeout(configTimeout)
                        .drainTimeout(drainTimeout)
                        .rebootTimeout(rebootTimeout)
                        .stallTimeout(stallTimeout)
                        .attestTimeout(attestTimeout)
                        .lockTimeout(lockTimeout)
                        .leaseDuration(leaseDuration)
                        .drain(drain);
                return runId == null ? b : b.runId(runId);
            });
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    RebootDriver rebootDriver() {
        if (action == Action.NONE) {
            return node -> {
                throw new IllegalStateException("--action none never reboots");
            };
        }
        if (driverTimeout.isZero() || driverTimeout.isNegative()) {
            throw new UsageException("--driver-timeout must be a positive duration");
        }
        ProcessRunner runner = new ProcessRunner(driverTimeout);
        if (driver == DriverKind.command) {
            if (rebootCommand == null) {
                throw new UsageException("--reboot-driver command needs --reboot-command");
            }
            try {
                return new CommandDriver(CommandTemplate.parse(rebootCommand), runner);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage(), e);
            }
        }
        if (rebootCommand != null) {
            throw new UsageException("--reboot-command needs --reboot-driver command");
        }
        return new TalosctlDriver(gateOptions.talosctl, gateOptions.talosconfig, runner);
    }

    /** {@code reboot}, {@code none} or {@code auto}. */
    public static final class ActionConverter implements CommandLine.ITypeConverter<Action> {
        @Override
        public Action convert(String value) {
            try {
                return Action.fromWire(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not reboot, none or auto");
            }
        }
    }
}
