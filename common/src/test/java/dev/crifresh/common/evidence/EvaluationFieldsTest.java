package dev.crifresh.common.evidence;

import static dev.crifresh.common.evidence.Given.BOOT;
import static dev.crifresh.common.evidence.Given.BOOT_ID;
import static dev.crifresh.common.evidence.Given.CONTAINERD_TOML;
import static dev.crifresh.common.evidence.Given.CRI_TOML;
import static dev.crifresh.common.evidence.Given.PID;
import static dev.crifresh.common.evidence.Given.cri;
import static dev.crifresh.common.evidence.Given.given;
import static dev.crifresh.common.evidence.Given.ms;
import static dev.crifresh.common.evidence.Reason.CONFIG_UNCHANGED_SINCE_LOAD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The fields of an evaluation besides its reason: what it carries, its message, which rules say fresh. */
class EvaluationFieldsTest {
    private static final RuleSettings TALOS = RuleSettings.defaults();
    private static final String V2 = "## merged v2\n";

    @Test
    void freshByOrderingCarriesEveryField() {
        Observation o = given().build();
        Evaluation e = EvidenceRules.evaluate(o, TALOS, null);
        String digest = ConfigDigest.of(o.files()).orElseThrow();

        assertEquals(Verdict.FRESH, e.verdict());
        assertEquals("containerd (pid 1234) started 2.950 s after the newest config change "
                + "(/etc/cri/conf.d/cri.toml, mtime), beyond the 50 ms margin", e.message());
        assertEquals(cri(PID, 500), e.containerd());
        assertEquals(BOOT.plusSeconds(5), e.containerdStartedAt());
        assertEquals(digest, e.configDigest());
        assertEquals(new EvaluationMemory(new ContainerdIdentity(BOOT_ID, PID, 500), digest, digest, false),
                e.memory());
    }


    @Test
    void unknownVerdictsCarryWhatWasSeen() {
        Evaluation noClock = EvidenceRules.evaluate(given().noClock().build(), TALOS, null);
        assertNull(noClock.containerdStartedAt());
        assertEquals(cri(PID, 500), noClock.containerd());
        assertNotNull(noClock.configDigest());
        assertEquals("the boot time is unreadable (NoSuchFileException: /proc/uptime)", noClock.message());

        Evaluation noBootId = EvidenceRules.evaluate(given().noBootId().build(), TALOS, null);
        assertEquals(BOOT.plusSeconds(5), noBootId.containerdStartedAt(), "the start is known without a boot id");
        assertEquals("the boot id is unreadable (NoSuchFileException: /proc/sys/kernel/random/boot_id)",
                noBootId.message());
        assertNull(EvidenceRules.evaluate(given().clkTck(0).build(), TALOS, null).containerdStartedAt());
        assertEquals("the clock tick rate 0 is not positive",
                EvidenceRules.evaluate(given().clkTck(0).build(), TALOS, null).message());

        Evaluation ambiguous = EvidenceRules.evaluate(
                given().containerds(cri(PID, 500), cri(1300, 700)).build(), TALOS, null);
        assertNull(ambiguous.containerd());
        assertNull(ambiguous.containerdStartedAt());
        assertEquals("2 processes match the CRI containerd command line (pids 1234, 1300)", ambiguous.message());

        Evaluation unreadable = EvidenceRules.evaluate(
                given().unreadable(CRI_TOML, "AccessDeniedException:\n" + CRI_TOML).build(), TALOS, null);
        assertNull(unreadable.configDigest());
        assertEquals(BOOT.plusSeconds(5), unreadable.containerdStartedAt());
        assertEquals("config /etc/cri/conf.d/cri.toml is unreadable (AccessDeniedException: /etc/cri/conf.d/cri.toml)",
                unreadable.message());
    }

    @Test
    void staleMessagesNameTheFileAndTheGap() {
        assertEquals("config /etc/cri/conf.d/cri.toml, mtime changed 3.000 s after containerd (pid 1234) started",
                EvidenceRules.evaluate(given().newest(ms(8000)).build(), TALOS, null).message());
        assertEquals("config /etc/cri/containerd.toml was written 1.000 s before this boot, beyond the 50 ms margin,"
                        + " so the wall clock moved",
                EvidenceRules.evaluate(given().touch(CONTAINERD_TOML, ms(-1000)).build(), TALOS, null).message());
        assertEquals("config /etc/cri/conf.d/cri.toml has its mtime 1.000 s after it was read, beyond the 70 ms margin,"
                        + " so the wall clock moved",
                EvidenceRules.evaluate(given().clockError(ms(20)).newest(ms(61_000)).build(), TALOS, null).message());
        assertEquals("containerd (pid 1234) started 30 ms before the newest config change (/etc/cri/conf.d/cri.toml, mtime),"
                        + " within the 50 ms margin",
                EvidenceRules.evaluate(given().newest(ms(5030)).build(), TALOS, null).message());
    }

    @Test
    void onlyRulesThreeAndFourEverSayFresh() {
        // Observations where the clocks prove nothing, with and without a proven load in memory:
        // fresh appears only by content, and only when the files hold the loaded digest.
        EvaluationMemory proven = EvidenceRules.evaluate(given().build(), TALOS, null).memory();
        List<Given> doubtful = new ArrayList<>();
        Stream.of(ms(4950), ms(5000), ms(5050), ms(8000)).forEach(t -> doubtful.add(given().newest(t)));
        doubtful.add(given().touch(CONTAINERD_TOML, ms(-51)));
        doubtful.add(given().newest(ms(60_051)));
        doubtful.add(given().criToml(ms(8000), V2));
        for (Given g : doubtful) {
            for (EvaluationMemory m : new EvaluationMemory[] {null, proven}) {
                Observation o = g.build();
                Evaluation e = EvidenceRules.evaluate(o, TALOS, m);
                if (e.verdict() == Verdict.FRESH) {
                    assertEquals(CONFIG_UNCHANGED_SINCE_LOAD, e.reason(), e.message());
                    assertEquals(proven.loadedDigest(), e.configDigest());
                }
            }
        }
        assertEquals(Verdict.STALE, EvidenceRules.evaluate(given().criToml(ms(100), V2).build(), TALOS,
                proven).verdict(), "a live change with a clock saying fresh");
    }
}
