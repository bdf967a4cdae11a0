package dev.crifresh.coordinator.gate.etcd;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides etcd's health from what {@code talosctl -n <every control-plane IP>} printed for {@code etcd status},
 * {@code etcd members} and {@code etcd alarm list}. Healthy only when all hold, else the first problem, naming
 * the member and its node:
 * <ol>
 *   <li>each command exited 0 and every control plane answered (talosctl prints
 *       {@code error from node <ip>: …} on stderr — older releases {@code * <ip>: …} — for one that did not);</li>
 *   <li>every control plane has a status row; its {@code ERRORS} cell is empty, it is not a learner;</li>
 *   <li>every row names the same leader, which is one of the members;</li>
 *   <li>etcd has exactly as many members as the cluster has control planes (a stale extra member would make a
 *       reboot cost quorum);</li>
 *   <li>no alarm ({@code NOSPACE}, {@code CORRUPT}, …) is raised.</li>
 * </ol>
 * Anything it cannot read is a problem too: a doubt never lets a control plane go down. Pure.
 */
public final class EtcdStatusParser {
    private static final Pattern MEMBER_ID = Pattern.compile("[0-9a-f]{16}");
    private static final String NO_LEADER = "0000000000000000";
    private static final Pattern NODE_ERROR = Pattern.compile("(?:error from node |\\*\\s+)([^\\s:]+(?::\\d+)?|\\[[^\\]]+\\]):\\s*(.*)");

    private EtcdStatusParser() {
    }

    public static EtcdHealth parse(List<ControlPlane> controlPlanes, CommandOutput status, CommandOutput members,
            CommandOutput alarms) {
        if (controlPlanes.isEmpty()) {
            return EtcdHealth.problem("the cluster has no control-plane node to ask about etcd");
        }
        Optional<String> failed = commandFailed("etcd status", status, controlPlanes)
                .or(() -> commandFailed("etcd members", members, controlPlanes))
                .or(() -> commandFailed("etcd alarm list", alarms, controlPlanes));
        if (failed.isPresent()) {
            return EtcdHealth.problem(failed.get());
        }
        List<Map<String, String>> rows = TalosctlTable.parse(status.stdout(), "NODE");
        if (rows.isEmpty()) {
            return EtcdHealth.problem("talosctl etcd status printed no status table");
        }
        Optional<String> unreadable = rows.stream().map(EtcdStatusParser::unreadableStatus)
                .flatMap(Optional::stream).findFirst();
        if (unreadable.isPresent()) {
            return EtcdHealth.problem(unreadable.get());
        }
        Map<String, Map<String, String>> byNode = new LinkedHashMap<>();
        rows.forEach(row -> byNode.put(row.get("NODE"), row));
        Set<String> memberIds = new LinkedHashSet<>();
        Set<String> leaders = new LinkedHashSet<>();
        for (ControlPlane cp : controlPlanes) {
            Map<String, String> row = byNode.containsKey(cp.ip()) ? byNode.get(cp.ip()) : byNode.get(cp.name());
            if (row == null) {
                return EtcdHealth.problem("no etcd status from " + cp.label());
            }
            String member = row.get("MEMBER");
            if (!row.get("ERRORS").isEmpty()) {
                return EtcdHealth.problem("etcd member " + member + " on " + cp.label() + " reports: " + row.get("ERRORS"));
            }
            if (row.get("LEARNER").equals("true")) {
                return EtcdHealth.problem("etcd member " + member + " on " + cp.label() + " is a learner, not yet a voting member");
            }
            if (row.get("LEADER").equals(NO_LEADER)) {
                return EtcdHealth.problem("etcd member " + member + " on " + cp.label() + " sees no leader");
            }
            memberIds.add(member);
            leaders.add(row.get("LEADER"));
        }
        if (leaders.size() != 1) {
            return EtcdHealth.problem("etcd members disagree on the leader: " + String.join(", ", leaders));
        }
        String leader = leaders.iterator().next();
        if (!memberIds.contains(leader)) {
            return EtcdHealth.problem("etcd's leader " + leader + " is not a member on any control-plane node");
        }
        Optional<String> membership = membership(controlPlanes, members);
        if (membership.isPresent()) {
            return EtcdHealth.problem(membership.get());
        }
        Optional<String> alarm = raisedAlarm(controlPlanes, alarms);
        if (alarm.isPresent()) {
            return EtcdHealth.problem(alarm.get());
        }
        return EtcdHealth.ok("etcd healthy: " + memberIds.size() + (memberIds.size() == 1 ? " member" : " members") + ", leader " + leader + ", no alarms");
    }

    /** Why one line of {@code talosctl etcd status} cannot be read; empty when it can. */
    private static Optional<String> unreadableStatus(Map<String, String> row) {
        String member = row.getOrDefault("MEMBER", "");
        String leader = row.getOrDefault("LEADER", "");
        String learner = row.getOrDefault("LEARNER", "");
        if (!MEMBER_ID.matcher(member).matches() || !MEMBER_ID.matcher(leader).matches()
                || !(learner.equals("true") || learner.equals("false")) || !row.containsKey("ERRORS")) {
            return Optional.of("cannot read a line of talosctl etcd status (node " + row.getOrDefault("NODE", "?")
                    + "): member '" + member + "', leader '" + leader + "', learner '" + learner + "'");
        }
        return Optional.empty();
    }

    /** The first alarm {@code talosctl etcd alarm list} reports; empty when none. */
    private static Optional<String> raisedAlarm(List<ControlPlane> controlPlanes, CommandOutput alarms) {
        for (Map<String, String> alarm : TalosctlTable.parse(alarms.stdout(), "NODE")) {
            String kind = alarm.getOrDefault("ALARM", "");
            if (!kind.isEmpty() && !kind.equals("NONE")) {
                return Optional.of("etcd alarm " + kind + " on member " + alarm.getOrDefault("MEMBER", "?")
                        + " (reported by " + nodeLabel(alarm.getOrDefault("NODE", "?"), controlPlanes) + ")");
            }
        }
        return Optional.empty();
    }

    private static Optional<String> membership(List<ControlPlane> controlPlanes, CommandOutput members) {
        List<Map<String, String>> rows = TalosctlTable.parse(members.stdout(), "NODE");
        if (rows.isEmpty()) {
            return Optional.of("talosctl etcd members printed no member table");
        }
        Map<String, String> hostnames = new LinkedHashMap<>();
        for (Map<String, String> row : rows) {
            String id = row.getOrDefault("ID", "");
            if (!MEMBER_ID.matcher(id).matches()) {
                return Optional.of("cannot read a line of talosctl etcd members: id '" + id + "'");
            }
            if ("true".equals(row.get("LEARNER"))) {
                return Optional.of("etcd member " + id + " (" + row.getOrDefault("HOSTNAME", "?") + ") is a learner");
            }
            hostnames.put(id, row.getOrDefault("HOSTNAME", "?"));
        }
        if (hostnames.size() != controlPlanes.size()) {
            List<String> listed = new ArrayList<>();
            hostnames.forEach((id, host) -> listed.add(id + " (" + host + ")"));
            return Optional.of("etcd has " + hostnames.size() + " members but the cluster has " + controlPlanes.size()
                    + " control planes, so a reboot could cost quorum: " + String.join(", ", listed));
        }
        return Optional.empty();
    }

    private static Optional<String> commandFailed(String what, CommandOutput out, List<ControlPlane> controlPlanes) {
        for (String line : out.stderr().lines().toList()) {
            Matcher m = NODE_ERROR.matcher(line.strip());
            if (m.lookingAt()) {
                return Optional.of("talosctl " + what + ": no answer from " + nodeLabel(m.group(1), controlPlanes) + ": "
                        + m.group(2));
            }
        }
        if (out.exitCode() != 0) {
            String last = out.stderr().strip().lines().reduce((a, b) -> b).orElse("");
            return Optional.of("talosctl " + what + " exited with " + out.exitCode() + (last.isEmpty() ? "" : ": " + last));
        }
        return Optional.empty();
    }

    private static String nodeLabel(String ipOrName, List<ControlPlane> controlPlanes) {
        return controlPlanes.stream().filter(cp -> cp.ip().equals(ipOrName) || cp.name().equals(ipOrName))
                .map(ControlPlane::label).findFirst().orElse(ipOrName);
    }
}
