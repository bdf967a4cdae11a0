package dev.crifresh.sim.external;

import dev.crifresh.coordinator.gate.etcd.CommandOutput;
import dev.crifresh.coordinator.gate.etcd.CommandRunner;
import dev.crifresh.sim.node.SimulatedNode;
import dev.crifresh.sim.scenario.EtcdMember;
import dev.crifresh.sim.scenario.Role;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Answers {@code talosctl -n <ips> etcd status|members|alarm list} for the simulated control planes, in
 * talosctl's own output format (a tabwriter table with three spaces of padding; a node that does not answer
 * is an {@code error from node <ip>: …} line on stderr and exit 1), so the coordinator's real parser reads it.
 * A control plane's member is healthy unless the scenario says {@code etcd: unhealthy} (then it reports an
 * error) or the node is down (then it does not answer). The leader is the first answering healthy member.
 */
public final class SimulatedTalosctl implements CommandRunner {
    static final String STATUS_HEADER = "NODE\tMEMBER\tDB SIZE\tIN USE\tLEADER\tRAFT INDEX\tRAFT TERM\tRAFT APPLIED INDEX"
            + "\tLEARNER\tPROTOCOL\tSTORAGE\tERRORS";
    private final Supplier<Collection<SimulatedNode>> nodes;

    public SimulatedTalosctl(Supplier<Collection<SimulatedNode>> nodes) {
        this.nodes = nodes;
    }

    /** The etcd member id of a control plane, as talosctl formats it (16 hex digits). */
    public static String memberId(SimulatedNode node) {
        return String.format(Locale.ROOT, "%016x", (node.name().hashCode() & 0xffffffffL) * 0x9e3779b1L + 0x1234);
    }

    @Override
    public CommandOutput run(List<String> argv) {
        int n = argv.indexOf("-n");
        if (n < 0 || n + 1 >= argv.size()) {
            return new CommandOutput(1, "", "error: no nodes given\n");
        }
        List<String> ips = List.of(argv.get(n + 1).split(","));
        List<String> command = argv.subList(n + 2, argv.size());
        List<SimulatedNode> targets = new ArrayList<>();
        StringBuilder err = new StringBuilder();
        for (String ip : ips) {
            SimulatedNode node = nodes.get().stream().filter(x -> x.internalIp().equals(ip)).findFirst().orElse(null);
            if (node == null || node.state() != SimulatedNode.State.UP) {
                err.append("error from node ").append(ip)
                        .append(": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp ")
                        .append(ip).append(":50000: connect: connection refused\"\n");
            } else if (node.spec().role() != Role.CONTROL_PLANE) {
                err.append("error from node ").append(ip)
                        .append(": rpc error: code = Unimplemented desc = etcd is only available on control plane nodes\n");
            } else {
                targets.add(node);
            }
        }
        String out = switch (String.join(" ", command)) {
            case "etcd status" -> status(targets);
            case "etcd members" -> members(targets);
            case "etcd alarm list" -> "";
            default -> null;
        };
        if (out == null) {
            return new CommandOutput(1, "", "error: unknown command \"" + String.join(" ", command) + "\"\n");
        }
        return new CommandOutput(err.isEmpty() ? 0 : 1, out, err.toString());
    }

    private String status(List<SimulatedNode> targets) {
        String leader = targets.stream().filter(t -> t.spec().etcd() == EtcdMember.HEALTHY).map(SimulatedTalosctl::memberId)
                .findFirst().orElse("0000000000000000");
        List<String> rows = new ArrayList<>();
        rows.add(STATUS_HEADER);
        for (SimulatedNode t : targets) {
            boolean healthy = t.spec().etcd() == EtcdMember.HEALTHY;
            rows.add(String.join("\t", t.internalIp(), memberId(t), "25 MB", "12 MB (48.00%)",
                    healthy ? leader : "0000000000000000", "481233", "7", "481233", "false", "3.6.0", "3.6.0",
                    healthy ? "" : "etcdserver: no leader, rafthttp: failed to reach the peer"));
        }
        return table(rows);
    }

    private String members(List<SimulatedNode> targets) {
        List<String> rows = new ArrayList<>();
        rows.add("NODE\tID\tHOSTNAME\tPEER URLS\tCLIENT URLS\tLEARNER");
        List<SimulatedNode> all = nodes.get().stream().filter(x -> x.spec().role() == Role.CONTROL_PLANE).toList();
        for (SimulatedNode asked : targets) {
            for (SimulatedNode member : all) {
                rows.add(String.join("\t", asked.internalIp(), memberId(member), member.name(),
                        "https://" + member.internalIp() + ":2380", "https://" + member.internalIp() + ":2379", "false"));
            }
        }
        return table(rows);
    }

    /** Go's tabwriter with minwidth 0, padding 3, padded with spaces: every cell but the last padded to its column. */
    static String table(List<String> rows) {
        List<String[]> cells = rows.stream().map(r -> r.split("\t", -1)).toList();
        int columns = cells.stream().mapToInt(c -> c.length).max().orElse(0);
        int[] width = new int[columns];
        for (String[] row : cells) {
            for (int i = 0; i < row.length - 1; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : cells) {
            for (int i = 0; i < row.length; i++) {
                sb.append(row[i]);
                if (i < row.length - 1) {
                    sb.append(" ".repeat(width[i] - row[i].length() + 3));
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
