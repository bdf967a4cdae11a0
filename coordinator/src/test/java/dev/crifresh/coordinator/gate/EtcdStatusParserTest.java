package dev.crifresh.coordinator.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.gate.etcd.CommandOutput;
import dev.crifresh.coordinator.gate.etcd.ControlPlane;
import dev.crifresh.coordinator.gate.etcd.EtcdHealth;
import dev.crifresh.coordinator.gate.etcd.EtcdStatusParser;
import dev.crifresh.coordinator.gate.etcd.TalosctlEtcdProbe;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** talosctl's etcd tables, as its tabwriter prints them (padding 3), in the shapes releases have printed them. */
class EtcdStatusParserTest {
    private static final List<ControlPlane> CPS = List.of(new ControlPlane("cp-1", "172.20.0.2"),
            new ControlPlane("cp-2", "172.20.0.3"), new ControlPlane("cp-3", "172.20.0.4"));

    /** talosctl ≥ 1.10: PROTOCOL and STORAGE columns; values with single spaces. */
    static final String STATUS = """
            NODE         MEMBER             DB SIZE   IN USE            LEADER             RAFT INDEX   RAFT TERM   RAFT APPLIED INDEX   LEARNER   PROTOCOL   STORAGE   ERRORS
            172.20.0.2   a49c021e76e707db   17 MB     4.7 MB (27.45%)   a49c021e76e707db   53045        2           53045                false     3.6.0      3.6.0    \s
            172.20.0.3   eb21fb1d1e3c0a5e   17 MB     4.6 MB (27.04%)   a49c021e76e707db   53045        2           53045                false     3.6.0      3.6.0    \s
            172.20.0.4   5d3f0d2d3e1f7c8a   16 MB     4.5 MB (28.10%)   a49c021e76e707db   53045        2           53045                false     3.6.0      3.6.0    \s
            """;
    static final String MEMBERS = """
            NODE         ID                 HOSTNAME   PEER URLS                 CLIENT URLS               LEARNER
            172.20.0.2   a49c021e76e707db   cp-1       https://172.20.0.2:2380   https://172.20.0.2:2379   false
            172.20.0.2   eb21fb1d1e3c0a5e   cp-2       https://172.20.0.3:2380   https://172.20.0.3:2379   false
            172.20.0.2   5d3f0d2d3e1f7c8a   cp-3       https://172.20.0.4:2380   https://172.20.0.4:2379   false
            """;

    private static EtcdHealth parse(String status, String members, String alarms) {
        return EtcdStatusParser.parse(CPS, ok(status), ok(members), ok(alarms));
    }

    private static CommandOutput ok(String out) {
        return new CommandOutput(0, out, "");
    }

    @Test
    void threeHealthyMembersWithOneLeaderAndNoAlarmsAreHealthy() {
        EtcdHealth h = parse(STATUS, MEMBERS, "");
        assertTrue(h.healthy(), h.detail());
        assertEquals("etcd healthy: 3 members, leader a49c021e76e707db, no alarms", h.detail());
    }

    @Test
    void anOlderTableWithoutProtocolAndStorageIsReadToo() {
        String older = """
                NODE         MEMBER             DB SIZE   IN USE            LEADER             RAFT INDEX   RAFT TERM   RAFT APPLIED INDEX   LEARNER   ERRORS
                172.20.0.2   a49c021e76e707db   17 MB     4.7 MB (27.45%)   a49c021e76e707db   53045        2           53045                false    \s
                172.20.0.3   eb21fb1d1e3c0a5e   17 MB     4.6 MB (27.04%)   a49c021e76e707db   53045        2           53045                false    \s
                172.20.0.4   5d3f0d2d3e1f7c8a   16 MB     4.5 MB (28.10%)   a49c021e76e707db   53045        2           53045                false    \s
                """;
        assertTrue(parse(older, MEMBERS, "").healthy());
    }

    @Test
    void aMemberReportingErrorsIsNamedWithItsNode() {
        String status = STATUS.replace("3.6.0      3.6.0    \s\n172.20.0.4", "3.6.0      3.6.0     etcdserver: no leader\n172.20.0.4")
                .replaceFirst("(172.20.0.3.*3\\.6\\.0 {6})\\s*\\n", "$1etcdserver: no leader\n");
        EtcdHealth h = parse(status, MEMBERS, "");
        assertFalse(h.healthy());
        assertEquals("etcd member eb21fb1d1e3c0a5e on cp-2 (172.20.0.3) reports: etcdserver: no leader", h.detail());
    }

    @Test
    void aControlPlaneThatDoesNotAnswerIsNamed() {
        String status = STATUS.lines().filter(l -> !l.startsWith("172.20.0.4")).reduce((a, b) -> a + "\n" + b).orElseThrow();
        EtcdHealth h = EtcdStatusParser.parse(CPS, new CommandOutput(1, status,
                "error from node 172.20.0.4: rpc error: code = Unavailable desc = connection refused\n"), ok(MEMBERS), ok(""));
        assertEquals("talosctl etcd status: no answer from cp-3 (172.20.0.4): rpc error: code = Unavailable desc = connection refused",
                h.detail());
        EtcdHealth older = EtcdStatusParser.parse(CPS, new CommandOutput(0, status,
                "WARNING: 1 error occurred:\n\t* 172.20.0.4: rpc error: code = DeadlineExceeded desc = context deadline exceeded\n"),
                ok(MEMBERS), ok(""));
        assertTrue(older.detail().startsWith("talosctl etcd status: no answer from cp-3 (172.20.0.4)"), older.detail());
        EtcdHealth missing = parse(status, MEMBERS, "");
        assertEquals("no etcd status from cp-3 (172.20.0.4)", missing.detail());
    }

    @Test
    void disagreementOnTheLeaderOrNoLeaderIsUnhealthy() {
        String split = STATUS.replaceFirst("(172.20.0.4   5d3f0d2d3e1f7c8a   16 MB     4.5 MB \\(28.10%\\)   )a49c021e76e707db",
                "$15d3f0d2d3e1f7c8a");
        assertTrue(parse(split, MEMBERS, "").detail().startsWith("etcd members disagree on the leader"));
        String none = STATUS.replace("(27.04%)   a49c021e76e707db", "(27.04%)   0000000000000000");
        assertEquals("etcd member eb21fb1d1e3c0a5e on cp-2 (172.20.0.3) sees no leader", parse(none, MEMBERS, "").detail());
    }

    @Test
    void aLearnerIsNotYetAVotingMember() {
        String learner = STATUS.replaceFirst("(172.20.0.4.*53045 {16})false", "$1true ");
        assertEquals("etcd member 5d3f0d2d3e1f7c8a on cp-3 (172.20.0.4) is a learner, not yet a voting member",
                parse(learner, MEMBERS, "").detail());
    }

    @Test
    void moreMembersThanControlPlanesCouldCostQuorum() {
        String extra = MEMBERS + "172.20.0.2   0badc0ffee000001   old-cp     https://172.20.0.9:2380   https://172.20.0.9:2379   false\n";
        EtcdHealth h = parse(STATUS, extra, "");
        assertFalse(h.healthy());
        assertTrue(h.detail().startsWith("etcd has 4 members but the cluster has 3 control planes"), h.detail());
        assertTrue(h.detail().contains("0badc0ffee000001 (old-cp)"), h.detail());
    }

    @Test
    void anAlarmIsUnhealthyAndNamesTheMember() {
        String alarms = """
                NODE         MEMBER             ALARM
                172.20.0.3   eb21fb1d1e3c0a5e   NOSPACE
                """;
        assertEquals("etcd alarm NOSPACE on member eb21fb1d1e3c0a5e (reported by cp-2 (172.20.0.3))",
                parse(STATUS, MEMBERS, alarms).detail());
    }

    @Test
    void anythingUnreadableIsUnhealthy() {
        assertEquals("talosctl etcd status printed no status table", parse("", MEMBERS, "").detail());
        assertTrue(parse(STATUS.replace("a49c021e76e707db   17 MB", "not-an-id          17 MB"), MEMBERS, "").detail()
                .startsWith("cannot read a line of talosctl etcd status"));
        assertEquals("talosctl etcd alarm list exited with 1: error: unknown command",
                EtcdStatusParser.parse(CPS, ok(STATUS), ok(MEMBERS), new CommandOutput(1, "", "error: unknown command\n")).detail());
        assertFalse(EtcdStatusParser.parse(List.of(), ok(STATUS), ok(MEMBERS), ok("")).healthy());
    }

    @Test
    void theProbeAsksEveryControlPlaneWithTheExactTalosctlCommands() throws Exception {
        List<List<String>> asked = new ArrayList<>();
        TalosctlEtcdProbe probe = new TalosctlEtcdProbe("/usr/local/bin/talosctl", java.nio.file.Path.of("/etc/talos/config"),
                argv -> {
                    asked.add(argv);
                    String sub = String.join(" ", argv.subList(5, argv.size()));
                    return ok(sub.equals("etcd status") ? STATUS : sub.equals("etcd members") ? MEMBERS : "");
                });
        assertTrue(probe.check(CPS, CPS.get(0)).healthy());
        String prefix = "/usr/local/bin/talosctl --talosconfig /etc/talos/config -n 172.20.0.2,172.20.0.3,172.20.0.4 ";
        assertEquals(List.of(prefix + "etcd status", prefix + "etcd members", prefix + "etcd alarm list"),
                asked.stream().map(a -> String.join(" ", a)).toList());
        assertEquals("control plane cp-9 has no InternalIP to ask talosctl about etcd",
                probe.check(List.of(new ControlPlane("cp-9", null)), new ControlPlane("cp-9", null)).detail());
    }
}
