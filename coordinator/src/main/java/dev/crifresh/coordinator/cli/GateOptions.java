package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.driver.CommandTemplate;
import dev.crifresh.coordinator.gate.EtcdCheckMode;
import dev.crifresh.coordinator.gate.GateSettings;
import dev.crifresh.coordinator.gate.GateWiring;
import dev.crifresh.coordinator.gate.PullProofMode;
import dev.crifresh.coordinator.gate.etcd.CommandEtcdProbe;
import dev.crifresh.coordinator.gate.etcd.CommandRunner;
import dev.crifresh.coordinator.gate.etcd.EtcdProbe;
import dev.crifresh.coordinator.gate.etcd.TalosctlEtcdProbe;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine.Option;

/** The rollout gates' flags, shared by {@code plan} (which shows what they say now) and {@code rollout}. */
public final class GateOptions {
    /** How long one talosctl etcd command may take. */
    static final Duration ETCD_COMMAND_TIMEOUT = Duration.ofSeconds(30);

    @Option(names = "--talosctl", paramLabel = "PATH", defaultValue = "talosctl",
            description = "The talosctl executable, for reboots and the etcd gate (default: ${DEFAULT-VALUE}).")
    String talosctl;

    @Option(names = "--talosconfig", paramLabel = "FILE", description = "talosconfig passed to talosctl (default: talosctl's own).")
    Path talosconfig;

    @Option(names = "--pull-proof", paramLabel = "off|rebooted|all", defaultValue = "off",
            description = "After a rebooted node attests fresh, prove it pulls --pull-proof-image with no imagePullSecrets; all: also every node skipped as fresh, read-only, before any reboot (default: ${DEFAULT-VALUE}).")
    String pullProof;

    @Option(names = "--pull-proof-image", paramLabel = "IMAGE", description = "A private image on the rotated registry, pulled by the probe pod.")
    String pullProofImage;

    @Option(names = "--pull-proof-namespace", paramLabel = "NS", defaultValue = "crifresh",
            description = "Namespace of the probe pods; its default ServiceAccount must have no imagePullSecrets (default: ${DEFAULT-VALUE}).")
    String pullProofNamespace;

    @Option(names = "--pull-proof-timeout", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
            description = "How long the kubelet may take to pull the probe image (default: ${DEFAULT-VALUE}).")
    Duration pullProofTimeout;

    @Option(names = "--etcd-check", paramLabel = "talosctl|command|none", defaultValue = "talosctl",
            description = "Before each control-plane reboot (and after it returns) require a healthy etcd: talosctl etcd status/members/alarm list, a command (--etcd-command), or none (a warning) (default: ${DEFAULT-VALUE}).")
    String etcdCheck;

    @Option(names = "--etcd-command", paramLabel = "TEMPLATE",
            description = "With --etcd-check command: exit 0 = etcd healthy; {node} {ip} = the control plane, {ips} = every control plane's InternalIP, comma-separated.")
    String etcdCommand;

    @Option(names = "--etcd-timeout", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "After a control plane returns, how long etcd may take to be healthy again (default: ${DEFAULT-VALUE}).")
    Duration etcdTimeout;

    @Option(names = "--block-on-alert", paramLabel = "REGEX",
            description = "Take no node down while a firing Prometheus alert's name matches REGEX (full match); needs --prometheus-url.")
    String blockOnAlert;

    @Option(names = "--prometheus-url", paramLabel = "URL", description = "Prometheus' base URL; its /api/v1/alerts is read for --block-on-alert.")
    String prometheusUrl;

    @Option(names = "--block-on-pod-selector", paramLabel = "SELECTOR",
            description = "Take no node down while a pod matching this label selector runs on it (e.g. app=batch).")
    String blockOnPodSelector;

    @Option(names = "--block-timeout", paramLabel = "DURATION", defaultValue = "30m", converter = DurationConverter.class,
            description = "How long one node may wait for its blockers to clear before the run stops, exit 3 (default: ${DEFAULT-VALUE}).")
    Duration blockTimeout;

    /** @throws UsageException naming the bad flag */
    GateWiring wiring() {
        try {
            PullProofMode proof = PullProofMode.fromWire(pullProof);
            EtcdCheckMode check = EtcdCheckMode.fromWire(etcdCheck);
            GateSettings settings = GateSettings.off()
                    .withPullProof(proof, pullProofImage)
                    .withProbeNamespace(pullProofNamespace)
                    .withPullProofTimeout(pullProofTimeout)
                    .withEtcdCheck(check)
                    .withEtcdTimeout(etcdTimeout, Duration.ofSeconds(5))
                    .withBlockTimeout(blockTimeout, Duration.ofSeconds(30));
            if (pullProofImage != null && proof == PullProofMode.OFF) {
                throw new IllegalArgumentException("--pull-proof-image needs --pull-proof rebooted or all");
            }
            if ((blockOnAlert == null) != (prometheusUrl == null)) {
                throw new IllegalArgumentException(blockOnAlert == null ? "--prometheus-url needs --block-on-alert"
                        : "--block-on-alert needs --prometheus-url");
            }
            Pattern alerts = null;
            if (blockOnAlert != null) {
                alerts = alertPattern(blockOnAlert);
                URI uri = URI.create(prometheusUrl);
                if (uri.getScheme() == null || !uri.getScheme().matches("https?") || uri.getHost() == null) {
                    throw new IllegalArgumentException("--prometheus-url '" + prometheusUrl + "' is not an http(s) URL");
                }
            }
            if (blockOnPodSelector != null && blockOnPodSelector.isBlank()) {
                throw new IllegalArgumentException("--block-on-pod-selector is empty");
            }
            return new GateWiring(settings, etcdProbe(check), prometheusUrl, alerts, blockOnPodSelector);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    private static Pattern alertPattern(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("--block-on-alert '" + regex + "' is not a regular expression: "
                    + e.getDescription());
        }
    }

    private EtcdProbe etcdProbe(EtcdCheckMode check) {
        if (check != EtcdCheckMode.COMMAND && etcdCommand != null) {
            throw new IllegalArgumentException("--etcd-command needs --etcd-check command");
        }
        return switch (check) {
            case NONE -> null;
            case TALOSCTL -> new TalosctlEtcdProbe(talosctl, talosconfig, CommandRunner.process(ETCD_COMMAND_TIMEOUT));
            case COMMAND -> {
                if (etcdCommand == null) {
                    throw new IllegalArgumentException("--etcd-check command needs --etcd-command");
                }
                CommandTemplate template;
                try {
                    template = CommandTemplate.parse(etcdCommand);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(e.getMessage().replace("--reboot-command", "--etcd-command"), e);
                }
                yield new CommandEtcdProbe(template, CommandRunner.process(ETCD_COMMAND_TIMEOUT));
            }
        };
    }
}
