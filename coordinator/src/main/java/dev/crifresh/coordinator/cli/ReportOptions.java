package dev.crifresh.coordinator.cli;

import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.common.text.IoErrors;
import dev.crifresh.coordinator.base.StaleTaint;
import dev.crifresh.coordinator.report.MarkdownReport;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.TextReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** Options shared by {@code plan} and {@code rollout}: inputs, node selection and output. */
public final class ReportOptions {
    public enum Format { text, json }

    @Mixin
    ClusterOptions cluster;

    @ArgGroup(exclusive = true, multiplicity = "1")
    TrustSource trust;

    @ArgGroup(exclusive = true, multiplicity = "1")
    CredentialSource credential;

    @Option(names = "--registry", paramLabel = "HOST", defaultValue = ConditionContract.DEFAULT_REGISTRY,
            description = "Registry whose credential containerd must have loaded (default: ${DEFAULT-VALUE}).")
    String registry;

    @Option(names = "--node-selector", paramLabel = "SELECTOR", description = "Label selector for the nodes to consider (default: all nodes).")
    String nodeSelector;

    @Option(names = "--api-outage-budget", paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
            description = "How long the API server may be away while a node whose reboot takes it away (the only control plane, or the node the API endpoint lives on) reboots; the run sends nothing meanwhile. 0s refuses such a reboot (default: ${DEFAULT-VALUE}).")
    Duration apiOutageBudget;

    @Option(names = "--allow-no-attestations",
            description = "Proceed when no selected node carries a verifiable attestation of its current boot (agents not running, trust bundle not matching, version skew): every node is then rebooted, as without crifresh. Without it, rollout stops before the first cordon and plan reports it, both with exit 6.")
    boolean allowNoAttestations;

    @Option(names = "--marker-annotation", paramLabel = "KEY", defaultValue = ConditionContract.DEFAULT_MARKER_ANNOTATION,
            // the default on a line of its own: at 80 columns it fits there whole, not after the wrap indent
            description = {"Machine-config marker annotation, reported beside each verdict and never trusted. Default:", "${DEFAULT-VALUE}"})
    String markerAnnotation;

    @Option(names = "--marker-current-value", paramLabel = "VALUE",
            description = "The marker value meaning 'current' (default: any non-empty value).")
    String markerCurrentValue;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "text",
            description = "What to print on stdout: text (a table) or json (the report) (default: ${DEFAULT-VALUE}).")
    Format output;

    @Option(names = "--stale-taint", paramLabel = "PreferNoSchedule|NoSchedule|off", defaultValue = "PreferNoSchedule",
            converter = StaleTaintConverter.class,
            description = "Before the first drain, taint every stale node to be rebooted with crifresh.dev/stale=<run id> and this effect, so evicted pods land on fresh nodes; with no fresh schedulable node, one stale worker is rolled first as the seed; off: neither (default: ${DEFAULT-VALUE}).")
    StaleTaint staleTaint;

    @Option(names = "--log-format", paramLabel = "text|json", defaultValue = "text",
            description = "How stderr log lines look: text, or json (one object per line); both carry the time, level and run id (default: ${DEFAULT-VALUE}).")
    RunLog.Format logFormat;

    @Option(names = "--report", paramLabel = "FILE", description = "Also write the JSON report to FILE.")
    Path reportFile;

    @Option(names = "--step-summary", paramLabel = "FILE", defaultValue = "${env:GITHUB_STEP_SUMMARY}",
            description = "Append a Markdown summary to FILE (default: $GITHUB_STEP_SUMMARY when set).")
    Path stepSummary;

    /** {@code PreferNoSchedule}, {@code NoSchedule} or {@code off}. */
    public static final class StaleTaintConverter implements CommandLine.ITypeConverter<StaleTaint> {
        @Override
        public StaleTaint convert(String value) {
            try {
                return StaleTaint.fromWire(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not PreferNoSchedule, NoSchedule or off");
            }
        }
    }

    void write(String title, Report report, PrintWriter out, PrintWriter err) {
        out.print(output == Format.json ? report.toJson() : TextReport.render(report));
        out.flush();
        if (reportFile != null) {
            try {
                Files.writeString(reportFile, report.toJson(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("crifresh-coordinator: warning: cannot write --report " + reportFile + ": " + IoErrors.describe(e));
            }
        }
        if (stepSummary != null && !stepSummary.toString().isBlank()) {
            try {
                Files.writeString(stepSummary, MarkdownReport.render(title, report), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                err.println("crifresh-coordinator: warning: cannot append to " + stepSummary + ": " + IoErrors.describe(e));
            }
        }
        err.flush();
    }
}
