package dev.crifresh.coordinator.report;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.cli.CrifreshVersion;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/** The run's metrics in the Prometheus text exposition format, for a Pushgateway. */
public final class RolloutMetrics {
    private RolloutMetrics() {
    }

    public static String render(Report report, Duration elapsed, Instant finished) {
        Summary s = report.summary();
        StringBuilder sb = new StringBuilder();
        gauge(sb, "crifresh_rollout_nodes", "Nodes considered by the run, by the verdict it started from.");
        sample(sb, "crifresh_rollout_nodes{verdict=\"fresh\"}", s.fresh());
        sample(sb, "crifresh_rollout_nodes{verdict=\"stale\"}", s.stale());
        sample(sb, "crifresh_rollout_nodes{verdict=\"config-pending\"}", s.configPending());
        sample(sb, "crifresh_rollout_nodes{verdict=\"unknown\"}", s.unknown());
        gauge(sb, "crifresh_rollout_outcome_nodes", "Nodes by what the run did to them.");
        for (Outcome o : Outcome.values()) {
            long n = report.nodes().stream().filter(x -> x.outcome() == o).count();
            sample(sb, "crifresh_rollout_outcome_nodes{outcome=\"" + o.wire() + "\"}", n);
        }
        gauge(sb, "crifresh_rollout_success", "1 when the run succeeded (or planned), 0 when it failed.");
        sample(sb, "crifresh_rollout_success", report.result() == Result.SUCCEEDED || report.result() == Result.PLANNED ? 1 : 0);
        gauge(sb, "crifresh_rollout_exit_code", "The run's exit code: 0 ok, 1 a node failed, 3 timed out, 4 lock.");
        sample(sb, "crifresh_rollout_exit_code", report.exitCode());
        gauge(sb, "crifresh_rollout_duration_seconds", "How long the run took.");
        sb.append("crifresh_rollout_duration_seconds ").append(String.format(Locale.ROOT, "%.3f", elapsed.toMillis() / 1000.0)).append('\n');
        gauge(sb, "crifresh_rollout_last_run_timestamp_seconds", "When the run finished, in seconds since the epoch.");
        sb.append("crifresh_rollout_last_run_timestamp_seconds ")
                .append(String.format(Locale.ROOT, "%.3f", finished.toEpochMilli() / 1000.0)).append('\n');
        buildInfo(sb, CrifreshVersion.current());
        return sb.toString();
    }

    /**
     * {@code crifresh_build_info{component="coordinator", version, claims_version} 1}, as the agents expose it;
     * {@code claims_version} is the newest claims version this coordinator reads.
     */
    static void buildInfo(StringBuilder sb, String version) {
        gauge(sb, "crifresh_build_info", "The crifresh build: its version and the attestation claims version it reads.");
        sb.append("crifresh_build_info{component=\"coordinator\",version=\"").append(escape(version))
                .append("\",claims_version=\"").append(AttestationClaims.VERSION).append("\"} 1\n");
    }

    private static String escape(String label) {
        return label.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private static void gauge(StringBuilder sb, String name, String help) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" gauge\n");
    }

    private static void sample(StringBuilder sb, String series, long value) {
        sb.append(series).append(' ').append(value).append('\n');
    }
}
