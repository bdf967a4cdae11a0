package dev.crifresh.sim.cli;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.report.NodeReport;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.sim.scenario.AgentMode;
import dev.crifresh.sim.scenario.Marker;
import dev.crifresh.sim.scenario.NodeSpec;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.base.SimEvent;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The demo told on the terminal: the situation, the plan beside the marker, the rollout, the summary. */
final class DemoStory {
    private final Scenario scenario;
    private final PrintWriter out;

    DemoStory(Scenario scenario, PrintWriter out) {
        this.scenario = scenario;
        this.out = out;
    }

    void intro() {
        out.printf("crifresh demo: %d simulated Talos nodes, the real agent on each, the real coordinator%n%n",
                scenario.nodes().size());
        out.println("""
                20 minutes ago the deploy rotated the %s pull credential. Talos rendered the new credential
                into every node's CRI config, and a cluster-update tool stamped the machine-config marker
                "current" on the nodes it touched. But containerd reads its CRI config once, when it starts:
                a node only pulls with the new credential if its running containerd started after that
                config was written.

                Each node's agent reads /proc and the config files, decides, and signs its answer (Ed25519)
                into the node's ContainerdConfigFresh condition. The coordinator checks the signatures and
                reboots exactly the nodes that cannot prove they are fresh. The marker is shown, never used.
                """.formatted(scenario.registry()));
        if (!scenario.revokedCredentials().isEmpty()) {
            out.println("""
                    The old token is revoked: a containerd still holding it gets 401 Unauthorized on every pull.
                    So after each reboot the coordinator also proves the node end to end: a probe pod pinned to
                    it pulls a private image with no imagePullSecrets — only the credential the node's running
                    containerd loaded can pull it.
                    """);
        }
        out.flush();
    }

    void plan(Report plan) {
        heading("1. Plan (read-only): the marker beside the evidence");
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"NODE", "ROLE", "MARKER", "VERDICT", "EVIDENCE", "DECISION"});
        int lying = 0;
        for (NodeReport n : plan.nodes()) {
            NodeSpec spec = scenario.node(n.name());
            rows.add(new String[] {n.name(), n.role().wire(), marker(spec), n.verdict().wire(), evidence(n, spec),
                n.decision().wire()});
            if (n.markerContradicts()) {
                lying++;
            }
        }
        table(rows);
        out.println();
        if (lying > 0) {
            out.printf("The marker says \"current\" on %d node%s whose containerd does not provably hold the new"
                    + " credential.%n", lying, lying == 1 ? "" : "s");
        }
        out.printf("Rollout order: %s (workers first, one at a time; the control plane last).%n%n",
                String.join(", ", plan.rebootOrder()));
        heading("2. Rollout");
        out.flush();
    }

    /** A coordinator progress line during the rollout. */
    void progress(String line) {
        out.println("  " + line);
        out.flush();
    }

    /** A simulated platform event during the rollout. */
    void event(SimEvent event) {
        if (EventText.notable(event) && event.kind() != SimEvent.Kind.HOSTILE_ATTESTATION) {
            out.println("      sim: " + EventText.of(event));
            out.flush();
        }
    }

    void summary(Report report, Duration took) {
        out.println();
        heading("3. Summary");
        List<NodeReport> skipped = report.nodes().stream().filter(n -> n.outcome() == Outcome.SKIPPED).toList();
        List<NodeReport> rebooted = report.nodes().stream().filter(n -> n.outcome() == Outcome.REBOOTED).toList();
        out.printf("Reboots avoided: %d of %d. A reboot-everything deploy would have drained all %d nodes.%n",
                skipped.size(), report.nodes().size(), report.nodes().size());
        for (NodeReport n : skipped) {
            out.printf("  %-10s %s%n", n.name(), skippedBecause(scenario.node(n.name())));
        }
        out.printf("%nRebooted: %d, each because it had to be:%n", rebooted.size());
        for (String name : report.rebootOrder()) {
            report.nodes().stream().filter(n -> n.name().equals(name) && n.outcome() == Outcome.REBOOTED)
                    .findFirst().ifPresent(n -> out.printf("  %-10s %s%n", n.name(),
                            rebootedBecause(n, scenario.node(n.name()))));
        }
        List<NodeReport> failed = report.nodes().stream().filter(n -> n.outcome() == Outcome.FAILED).toList();
        for (NodeReport n : failed) {
            out.printf("  %-10s FAILED: %s%n", n.name(), n.detail());
        }
        if (!rebooted.isEmpty() && failed.isEmpty()) {
            out.println("Every rebooted node came back and attested fresh from its new boot.");
        }
        long proven = report.gates().stream().filter(g -> g.gate().equals("pull-proof") && g.result().equals("passed")).count();
        if (proven > 0) {
            out.printf("Pull proof: %d of %d rebooted node%s pulled the private image with the credential their running"
                    + " containerd loaded (no imagePullSecrets).%n", proven, rebooted.size(), rebooted.size() == 1 ? "" : "s");
        }
        report.gates().stream().filter(g -> g.gate().equals("etcd") && g.node() != null && g.result().equals("passed"))
                .reduce((a, b) -> b).ifPresent(g -> out.printf("etcd: checked before and after each control-plane reboot (%s).%n",
                        g.detail().substring(g.detail().indexOf(':') + 2)));
        out.printf("%nResult: %s in %.1f s (exit %d).%n", report.result().wire(), took.toMillis() / 1000.0,
                report.exitCode());
        out.flush();
    }

    private String evidence(NodeReport n, NodeSpec spec) {
        if (n.verdict() == NodeVerdict.UNKNOWN) {
            return spec.agent() == AgentMode.EXPIRED
                    ? "its last attestation expired: the agent hung, nothing is proven"
                    : n.detail();
        }
        return ordering(spec);
    }

    private static String ordering(NodeSpec spec) {
        Duration gap = spec.configWrittenAfterBoot().minus(spec.containerdStartedAfterBoot());
        return gap.isNegative()
                ? "containerd started " + human(gap.negated()) + " after its config was written"
                : "containerd started " + human(gap) + " before its config was last written";
    }

    private static String skippedBecause(NodeSpec spec) {
        String marker = switch (spec.marker()) {
            case CURRENT -> "";
            case STALE -> " (its marker says stale: ignored)";
            case ABSENT -> " (no marker yet)";
        };
        return ordering(spec) + ": it loaded the new credential, no reboot needed" + marker + ".";
    }

    private static String rebootedBecause(NodeReport n, NodeSpec spec) {
        String because;
        if (n.verdict() == NodeVerdict.UNKNOWN) {
            because = spec.agent() == AgentMode.EXPIRED
                    ? "its agent hung and its last attestation expired: an unprovable node is rebooted"
                    : "no trustworthy attestation (" + n.detail() + ")";
        } else {
            because = ordering(spec) + ": it still held the old credential";
        }
        return because + (n.markerSaysCurrent() ? ", although the marker said current." : ".");
    }

    private static String marker(NodeSpec spec) {
        return spec.marker() == Marker.ABSENT ? "-" : spec.marker().wire();
    }

    /** "40 d", "20 min", "3.1 s": the same rounding as the condition messages. */
    static String human(Duration d) {
        return DurationText.approximate(d);
    }

    private void heading(String text) {
        out.println("== " + text + " ==");
    }

    private void table(List<String[]> rows) {
        int[] width = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(i == row.length - 1 ? row[i] : String.format("%-" + (width[i] + 2) + "s", row[i]));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
