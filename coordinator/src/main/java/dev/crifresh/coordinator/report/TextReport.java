package dev.crifresh.coordinator.report;

import java.util.ArrayList;
import java.util.List;

/** The human summary table printed at the end of {@code plan} and {@code rollout}. */
public final class TextReport {
    private static final String[] HEADER = {"NODE", "ROLE", "VERDICT", "REASON", "DECISION", "OUTCOME", "MARKER", "DETAIL"};

    private TextReport() {
    }

    public static String render(Report report) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (NodeReport n : report.nodes()) {
            rows.add(new String[] {n.name(), n.role().wire(), n.verdict().wire(), n.reason(), n.decision().wire(),
                n.outcome().wire(), marker(n), n.detail()});
        }
        int[] width = new int[HEADER.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length - 1; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                sb.append(i == row.length - 1 ? row[i] : pad(row[i], width[i] + 2));
            }
            sb.append('\n');
        }
        Summary s = report.summary();
        sb.append('\n').append("result: ").append(report.result().wire());
        if (report.error() != null) {
            sb.append(" — ").append(report.error());
        }
        sb.append('\n');
        if (report.cluster() != null) {
            sb.append("cluster: ").append(report.cluster().describe()).append('\n');
        }
        sb.append(String.format("nodes: %d  fresh: %d  stale: %d  config-pending: %d  unknown: %d  rebooted: %d  skipped: %d  failed: %d%n",
                s.nodes(), s.fresh(), s.stale(), s.configPending(), s.unknown(), s.rebooted(), s.skipped(), s.failed()));
        sb.append(report.result() == Result.PLANNED ? "rollout order: " : "reboot order: ")
                .append(report.rebootOrder().isEmpty() ? "(none)" : String.join(", ", report.rebootOrder())).append('\n');
        if (report.placement() != null) {
            sb.append("evicted pods: ").append(report.placement().describe()).append('\n');
        }
        if (!report.joinedDuringRun().isEmpty()) {
            sb.append("joined during the run: ").append(String.join(", ", report.joinedDuringRun())).append('\n');
        }
        if (!report.gates().isEmpty()) {
            sb.append("gates:\n");
            for (var g : report.gates()) {
                sb.append("  ").append(g.gate()).append(g.node() == null ? "" : " " + g.node()).append(": ")
                        .append(g.result()).append(" — ").append(g.detail()).append('\n');
            }
        }
        for (NodeReport n : report.nodes()) {
            if (n.markerContradicts()) {
                sb.append("WARNING: ").append(n.name()).append(": the machine-config marker says current, but containerd is ")
                        .append(n.verdict().wire()).append(" (").append(n.reason()).append(")\n");
            }
        }
        return sb.toString();
    }

    private static String marker(NodeReport n) {
        if (n.markerContradicts()) {
            return "current!";
        }
        return n.markerSaysCurrent() ? "current" : "-";
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
