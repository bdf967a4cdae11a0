package dev.crifresh.coordinator.report;

/** The Markdown summary appended to {@code $GITHUB_STEP_SUMMARY}. */
public final class MarkdownReport {
    private MarkdownReport() {
    }

    public static String render(String title, Report report) {
        StringBuilder sb = new StringBuilder();
        sb.append("### crifresh ").append(title).append(": ").append(report.result().wire()).append("\n\n");
        if (report.cluster() != null) {
            sb.append("Cluster: ").append(cell(report.cluster().describe())).append("\n\n");
        }
        if (report.error() != null) {
            sb.append("> ").append(cell(report.error())).append("\n\n");
        }
        Summary s = report.summary();
        sb.append(String.format("%d nodes: %d fresh, %d stale, %d config-pending, %d unknown — %d rebooted, %d skipped, %d failed%n%n",
                s.nodes(), s.fresh(), s.stale(), s.configPending(), s.unknown(), s.rebooted(), s.skipped(), s.failed()));
        sb.append("| Node | Role | Verdict | Reason | Decision | Outcome | Marker says current | Detail |\n");
        sb.append("|---|---|---|---|---|---|---|---|\n");
        for (NodeReport n : report.nodes()) {
            sb.append("| ").append(cell(n.name()))
                    .append(" | ").append(n.role().wire())
                    .append(" | ").append(n.verdict().wire())
                    .append(" | ").append(cell(n.reason()))
                    .append(" | ").append(n.decision().wire())
                    .append(" | ").append(n.outcome().wire())
                    .append(" | ").append(n.markerContradicts() ? "**yes — but containerd is " + n.verdict().wire() + "**"
                            : n.markerSaysCurrent() ? "yes" : "no")
                    .append(" | ").append(cell(n.detail())).append(" |\n");
        }
        sb.append('\n').append(report.result() == Result.PLANNED ? "Rollout order: " : "Reboot order: ")
                .append(report.rebootOrder().isEmpty() ? "none" : String.join(" → ", report.rebootOrder())).append("\n\n");
        if (report.placement() != null) {
            sb.append("Evicted pods: ").append(cell(report.placement().describe())).append("\n\n");
        }
        if (!report.joinedDuringRun().isEmpty()) {
            sb.append("Joined during the run: ").append(String.join(", ", report.joinedDuringRun())).append("\n\n");
        }
        if (!report.gates().isEmpty()) {
            sb.append("| Gate | Node | Result | Detail |\n|---|---|---|---|\n");
            for (var g : report.gates()) {
                sb.append("| ").append(g.gate()).append(" | ").append(g.node() == null ? "(cluster)" : cell(g.node()))
                        .append(" | ").append("failed".equals(g.result()) || "timed-out".equals(g.result())
                                ? "**" + g.result() + "**" : g.result())
                        .append(" | ").append(cell(g.detail())).append(" |\n");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String cell(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }
}
