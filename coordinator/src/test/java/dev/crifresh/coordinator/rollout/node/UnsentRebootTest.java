package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each piece of evidence that an earlier run's recorded reboot was never carried out (docs/design.md), on the pure
 * judgement: the whole set says so, and each one missing or contradicted leaves it unproven, naming that fact. Threat
 * model: the platform's ordinary faults (a lost Lease, a killed job, a failed driver, a node down), inside the line.
 */
class UnsentRebootTest {
    private static final Instant RECORDED = Instant.parse("2026-12-04T12:00:00Z");
    private static final UnsentReboot.Allowance ALLOW = new UnsentReboot.Allowance(Duration.ofSeconds(30), Duration.ofSeconds(60));
    /** Ready since an hour before the record; the heartbeat the run saw when it started the node. */
    private static final String SINCE = "2026-12-04T11:00:00Z";
    private static final String FIRST_BEAT = "2026-12-04T12:00:50Z";
    /** A heartbeat 95 s after the record: later than the Lease duration plus the clock allowance (90 s). */
    private static final String LATE_BEAT = "2026-12-04T12:01:35Z";

    private static Node node(String boot, String ready, String since, String beat, Map<String, String> annotations) {
        return new NodeBuilder().withNewMetadata().withName("w1").withUid("uid-1").withAnnotations(annotations).endMetadata()
                .withNewStatus().withNewNodeInfo().withBootID(boot).endNodeInfo()
                .addNewCondition().withType("Ready").withStatus(ready).withLastTransitionTime(since).withLastHeartbeatTime(beat)
                .endCondition().endStatus().build();
    }

    private static Map<String, String> record(String boot, String at) {
        return at == null ? Map.of(CrifreshAnnotations.ROLLOUT, "run-a/rebooting", CrifreshAnnotations.BOOT_ID, boot)
                : Map.of(CrifreshAnnotations.ROLLOUT, "run-a/rebooting", CrifreshAnnotations.BOOT_ID, boot,
                        CrifreshAnnotations.RECORDED_AT, at);
    }

    private static NodeFacts started() {
        return NodeFacts.of(node("boot-1", "True", SINCE, FIRST_BEAT, record("boot-1", RECORDED.toString())));
    }

    private static UnsentReboot.Judgement judge(NodeFacts now, Classification c) {
        return UnsentReboot.judge("run-a", started(), now, c, ALLOW);
    }

    private static UnsentReboot.Judgement judge(Node now) {
        return judge(NodeFacts.of(now), null);
    }

    private static Node proven() {
        return node("boot-1", "True", SINCE, LATE_BEAT, record("boot-1", RECORDED.toString()));
    }

    private static String unproven(Node now) {
        return assertInstanceOf(UnsentReboot.Unproven.class, judge(now)).missing();
    }

    @Test
    void theSameBootReadySinceBeforeTheRecordWithALateHeartbeatWasNeverRebooted() {
        UnsentReboot.NotCarriedOut never = assertInstanceOf(UnsentReboot.NotCarriedOut.class, judge(proven()));
        assertEquals("reboot recorded by run run-a was never carried out: boot id unchanged and Ready since 2026-12-04T11:00:00Z",
                never.why());
    }

    @Test
    void aNewBootIdOrNoneIsNotJudged() {
        assertEquals("its boot id is not the recorded one", unproven(node("boot-2", "True", SINCE, LATE_BEAT, record("boot-1", RECORDED.toString()))));
        assertEquals("it reports no boot id", unproven(node(null, "True", SINCE, LATE_BEAT, record("boot-1", RECORDED.toString()))));
    }

    @Test
    void aRecordWithoutItsTimeCannotBeJudged() {
        assertTrue(unproven(node("boot-1", "True", SINCE, LATE_BEAT, record("boot-1", null))).contains(CrifreshAnnotations.RECORDED_AT));
        assertTrue(unproven(node("boot-1", "True", SINCE, LATE_BEAT, record("boot-1", "yesterday"))).contains("no readable"));
    }

    @Test
    void aNodeNotReadyNowIsPerhapsRebooting() {
        String why = unproven(node("boot-1", "False", "2026-12-04T12:00:10Z", FIRST_BEAT, record("boot-1", RECORDED.toString())));
        assertEquals("it is not Ready (since 2026-12-04T12:00:10Z) and still reports the boot id recorded before the reboot (boot-1)", why);
    }

    @Test
    void aNotReadyEpisodeAfterTheRecordIsAmbiguous() {
        String why = unproven(node("boot-1", "True", "2026-12-04T12:00:20Z", LATE_BEAT, record("boot-1", RECORDED.toString())));
        assertTrue(why.startsWith("it has been Ready only since 2026-12-04T12:00:20Z, not since before the record at 2026-12-04T12:00:00Z"), why);
        assertTrue(why.contains("went NotReady in between"), why);
        // within the clock allowance before the record is not "since before" either
        assertInstanceOf(UnsentReboot.Unproven.class, judge(node("boot-1", "True", "2026-12-04T11:59:30Z", LATE_BEAT,
                record("boot-1", RECORDED.toString()))));
        assertInstanceOf(UnsentReboot.NotCarriedOut.class, judge(node("boot-1", "True", "2026-12-04T11:59:00Z", LATE_BEAT,
                record("boot-1", RECORDED.toString()))));
    }

    @Test
    void unreadableKubeletTimesAreNotEvidence() {
        assertEquals("its Ready condition has no readable lastTransitionTime",
                unproven(node("boot-1", "True", null, LATE_BEAT, record("boot-1", RECORDED.toString()))));
        assertEquals("its Ready condition has no readable lastHeartbeatTime",
                unproven(node("boot-1", "True", SINCE, "soon", record("boot-1", RECORDED.toString()))));
    }

    @Test
    void theHeartbeatMustHaveAdvancedWhileThisRunWatched() {
        String why = unproven(node("boot-1", "True", SINCE, FIRST_BEAT, record("boot-1", RECORDED.toString())));
        assertEquals("no kubelet heartbeat since this run started watching it (last 2026-12-04T12:00:50Z)", why);
    }

    @Test
    void theHeartbeatMustBeALeaseDurationAndTheClockAllowanceAfterTheRecord() {
        // advanced, but only 85 s after the record: a request sent before this run took the Lease may still act
        String why = unproven(node("boot-1", "True", SINCE, "2026-12-04T12:01:25Z", record("boot-1", RECORDED.toString())));
        assertEquals("its last kubelet heartbeat (2026-12-04T12:01:25Z) is less than 90s after the record at 2026-12-04T12:00:00Z", why);
    }

    @Test
    void itsAgentMustAttestTheSameBootWhereItAttests() {
        NodeFacts now = NodeFacts.of(proven());
        AttestationClaims same = new AttestationClaims(AttestationClaims.VERSION, AttestationClaims.ISSUER, "w1", "uid-1", "boot-1",
                RECORDED, RECORDED.plusSeconds(900), Verdict.STALE, "ConfigChangedAfterContainerdStart", null, null, null, Map.of(), 50, "a");
        UnsentReboot.NotCarriedOut never = assertInstanceOf(UnsentReboot.NotCarriedOut.class,
                judge(now, new Classification(now, NodeVerdict.STALE, "ConfigChangedAfterContainerdStart", "d", false, same)));
        assertTrue(never.why().endsWith("Ready since 2026-12-04T11:00:00Z, its agent still attests the same boot"), never.why());
        String wrong = assertInstanceOf(UnsentReboot.Unproven.class,
                judge(now, new Classification(now, NodeVerdict.UNKNOWN, "AttestationWrongBoot", "about boot boot-0", false, null))).missing();
        assertTrue(wrong.startsWith("its agent's attestation names another boot"), wrong);
    }

    @Test
    void aHeartbeatWithoutWhatTheRunSawAtItsStartIsNotAnAdvance() {
        assertInstanceOf(UnsentReboot.Unproven.class, UnsentReboot.judge("run-a", null, NodeFacts.of(proven()), null, ALLOW));
    }
}
