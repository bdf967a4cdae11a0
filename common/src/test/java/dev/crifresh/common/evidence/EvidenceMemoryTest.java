package dev.crifresh.common.evidence;

import static dev.crifresh.common.evidence.Given.BOOT_ID;
import static dev.crifresh.common.evidence.Given.CONTAINERD_TOML;
import static dev.crifresh.common.evidence.Given.CRI_TOML;
import static dev.crifresh.common.evidence.Given.CRI_V1;
import static dev.crifresh.common.evidence.Given.PID;
import static dev.crifresh.common.evidence.Given.REGISTRIES_PART;
import static dev.crifresh.common.evidence.Given.cri;
import static dev.crifresh.common.evidence.Given.given;
import static dev.crifresh.common.evidence.Given.ms;
import static dev.crifresh.common.evidence.Reason.CLOCK_ANOMALY;
import static dev.crifresh.common.evidence.Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START;
import static dev.crifresh.common.evidence.Reason.CONFIG_UNCHANGED_SINCE_LOAD;
import static dev.crifresh.common.evidence.Reason.CONFIG_UNREADABLE;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_AMBIGUOUS;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_NOT_FOUND;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_STARTED_AFTER_CONFIG;
import static dev.crifresh.common.evidence.Reason.HOST_UNREADABLE;
import static dev.crifresh.common.evidence.Reason.ORDERING_WITHIN_MARGIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What the rules remember between evaluations: sequences, each step with the memory the previous one returned. */
class EvidenceMemoryTest {
    private static final RuleSettings TALOS = RuleSettings.defaults();
    private static final String V2 = "## merged v2\n";

    /** Steps evaluated in order, each with the memory the previous step returned. */
    record Sequence(String name, List<Step> steps) {
        @Override
        public String toString() {
            return name;
        }
    }

    record Step(Given given, Reason expected) {
    }

    private static Step step(Given given, Reason expected) {
        return new Step(given, expected);
    }

    private static Sequence sequence(String name, Step... steps) {
        return new Sequence(name, List.of(steps));
    }

    @SuppressWarnings("checkstyle:methodlength") // a table of cases, one sequence of evaluations each
    static List<Sequence> sequences() {
        return List.of(
                sequence("an identical rewrite after a proven load stays fresh by content",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().newest(ms(40_000)), CONFIG_UNCHANGED_SINCE_LOAD),
                        step(given().newest(ms(50_000)), CONFIG_UNCHANGED_SINCE_LOAD)),
                sequence("an identical rewrite without a proven load is stale",
                        step(given().newest(ms(40_000)), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().newest(ms(40_000)), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a load within the margin is never proven by a later identical rewrite",
                        step(given().newest(ms(4960)), ORDERING_WITHIN_MARGIN),
                        step(given().newest(ms(4960)), ORDERING_WITHIN_MARGIN),
                        step(given().newest(ms(40_000)), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a live change, then the change reverted",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(40_000), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().criToml(ms(50_000), CRI_V1), CONFIG_UNCHANGED_SINCE_LOAD)),
                sequence("a live change that the clocks would call fresh (clock stepped back)",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().criToml(ms(100), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a change and revert before any proof never becomes fresh",
                        step(given().newest(ms(4960)), ORDERING_WITHIN_MARGIN),
                        step(given().criToml(ms(40_000), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().criToml(ms(100), CRI_V1), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a live change survives an unreadable file",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().criToml(ms(2050), V2).unreadable(REGISTRIES_PART, "EIO"), CONFIG_UNREADABLE),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a live change survives an unreadable host",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().criToml(ms(2050), V2).noBootId(), HOST_UNREADABLE),
                        step(given().criToml(ms(2050), V2).noClock(), HOST_UNREADABLE),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a live change survives scans that saw zero or two containerds",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().criToml(ms(2050), V2).containerds(), CONTAINERD_NOT_FOUND),
                        step(given().criToml(ms(2050), V2).containerds(cri(PID, 500), cri(1300, 700)),
                                CONTAINERD_AMBIGUOUS),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a change seen while the host clock was unreadable still counts",
                        step(given().newest(ms(4960)), ORDERING_WITHIN_MARGIN),
                        step(given().criToml(ms(40_000), V2).noClock(), HOST_UNREADABLE),
                        step(given().criToml(ms(100), CRI_V1), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a change seen while the boot id was unreadable still counts",
                        step(given().newest(ms(4960)), ORDERING_WITHIN_MARGIN),
                        step(given().criToml(ms(40_000), V2).noBootId(), HOST_UNREADABLE),
                        step(given().criToml(ms(100), CRI_V1), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a change seen while two containerds matched still counts",
                        step(given().newest(ms(4960)), ORDERING_WITHIN_MARGIN),
                        step(given().criToml(ms(40_000), V2).containerds(cri(PID, 500), cri(1300, 700)),
                                CONTAINERD_AMBIGUOUS),
                        step(given().criToml(ms(100), CRI_V1), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a change seen while no containerd matched still counts",
                        step(given().newest(ms(4960)), ORDERING_WITHIN_MARGIN),
                        step(given().criToml(ms(40_000), V2).containerds(), CONTAINERD_NOT_FOUND),
                        step(given().criToml(ms(100), CRI_V1), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a clock anomaly still records a live change",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(120_000), V2), CLOCK_ANOMALY),
                        step(given().criToml(ms(2050), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("rule 2 outranks a content proof",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().touch(CONTAINERD_TOML, ms(-1000)), CLOCK_ANOMALY),
                        step(given().newest(ms(40_000)), CONFIG_UNCHANGED_SINCE_LOAD)),
                sequence("pid reuse: same pid, new starttime, the remembered load no longer applies",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().startTicks(90_000).newest(ms(1_000_000)).observedAt(ms(2_000_000)),
                                CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("same pid and starttime: the remembered load applies",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().newest(ms(1_000_000)).observedAt(ms(2_000_000)), CONFIG_UNCHANGED_SINCE_LOAD)),
                sequence("a new boot id drops the memory even with the same pid and starttime",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().bootId("7d1e0c55-0b1f-4a34-8f0e-2f6a9c3b1d22").newest(ms(40_000)),
                                CONFIG_CHANGED_AFTER_CONTAINERD_START)),
                sequence("a restarted containerd after a live change is judged afresh",
                        step(given(), CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(40_000), V2), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                        step(given().criToml(ms(40_000), V2).containerds(cri(2000, 4500)).observedAt(ms(50_000)),
                                CONTAINERD_STARTED_AFTER_CONFIG),
                        step(given().criToml(ms(60_000), V2).containerds(cri(2000, 4500)).observedAt(ms(70_000)),
                                CONFIG_UNCHANGED_SINCE_LOAD)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sequences")
    void sequenceWithMemory(Sequence sequence) {
        EvaluationMemory memory = null;
        for (int i = 0; i < sequence.steps().size(); i++) {
            Step step = sequence.steps().get(i);
            Observation observation = step.given().build();
            Evaluation e = EvidenceRules.evaluate(observation, TALOS, memory);
            assertEquals(step.expected(), e.reason(), "step " + (i + 1) + ": " + e.message());
            EvidenceRulesTest.assertConsistent(observation, e);
            assertEquals(e, EvidenceRules.evaluate(observation, TALOS, memory), "step " + (i + 1) + " deterministic");
            memory = e.memory();
        }
    }


    @Test
    void staleByOrderingRemembersNoLoad() {
        Observation o = given().newest(ms(4960)).build();
        Evaluation e = EvidenceRules.evaluate(o, TALOS, null);
        String digest = ConfigDigest.of(o.files()).orElseThrow();

        assertEquals("containerd (pid 1234) started 40 ms after the newest config change "
                + "(/etc/cri/conf.d/cri.toml, mtime), within the 50 ms margin", e.message());
        assertEquals(new EvaluationMemory(new ContainerdIdentity(BOOT_ID, PID, 500), digest, null, false),
                e.memory());
    }

    @Test
    void liveChangeIsRememberedWithTheLoadedDigest() {
        Evaluation first = EvidenceRules.evaluate(given().build(), TALOS, null);
        Evaluation changed = EvidenceRules.evaluate(given().criToml(ms(2050), V2).build(), TALOS, first.memory());

        assertEquals(first.configDigest(), changed.memory().loadedDigest());
        assertTrue(changed.memory().changedWhileRunning());
        assertFalse(changed.configDigest().equals(first.configDigest()));
        assertEquals(changed.configDigest(), changed.memory().lastDigest());
        assertTrue(changed.message().startsWith("config changed to sha256:"), changed.message());
        assertTrue(changed.message().contains("while containerd (pid 1234) was running, but it loaded sha256:"),
                changed.message());
    }

    @Test
    void memoryFromAnotherBootIsIgnored() {
        Observation o = given().newest(ms(40_000)).build();
        String digest = ConfigDigest.of(o.files()).orElseThrow();
        EvaluationMemory otherBoot = new EvaluationMemory(
                new ContainerdIdentity("00000000-0000-0000-0000-000000000000", PID, 500), digest, digest, false);
        EvaluationMemory sameBoot = new EvaluationMemory(
                new ContainerdIdentity(BOOT_ID, PID, 500), digest, digest, false);

        Evaluation ignored = EvidenceRules.evaluate(o, TALOS, otherBoot);
        assertEquals(CONFIG_CHANGED_AFTER_CONTAINERD_START, ignored.reason());
        assertEquals(new EvaluationMemory(new ContainerdIdentity(BOOT_ID, PID, 500), digest, null, false),
                ignored.memory());
        assertEquals(CONFIG_UNCHANGED_SINCE_LOAD, EvidenceRules.evaluate(o, TALOS, sameBoot).reason());
    }

    @Test
    void rememberedChangeBlocksAnOrderingProofEvenWithoutALoad() {
        Observation o = given().build();
        String digest = ConfigDigest.of(o.files()).orElseThrow();
        EvaluationMemory changed = new EvaluationMemory(new ContainerdIdentity(BOOT_ID, PID, 500), digest, null, true);

        Evaluation e = EvidenceRules.evaluate(o, TALOS, changed);
        assertEquals(CONFIG_CHANGED_AFTER_CONTAINERD_START, e.reason());
        assertTrue(e.message().endsWith("and what it loaded was never proven"), e.message());
        assertTrue(e.memory().changedWhileRunning());
    }

    @Test
    void memoryWithoutALastDigestCountsAsChanged() {
        Observation o = given().build();
        EvaluationMemory blank = new EvaluationMemory(new ContainerdIdentity(BOOT_ID, PID, 500), null, null, false);

        assertEquals(CONFIG_CHANGED_AFTER_CONTAINERD_START, EvidenceRules.evaluate(o, TALOS, blank).reason());
    }

    @Test
    void withoutASingleContainerdOrBootIdThePreviousMemoryIsKept() {
        EvaluationMemory previous = EvidenceRules.evaluate(given().build(), TALOS, null).memory();
        List<Given> unidentified = List.of(
                given().containerds(),
                given().containerds(cri(PID, 500), cri(1300, 700)),
                given().noBootId());
        for (Given g : unidentified) {
            assertEquals(previous, EvidenceRules.evaluate(g.build(), TALOS, previous).memory());
            assertNull(EvidenceRules.evaluate(g.build(), TALOS, null).memory());

            Observation changed = g.criToml(ms(40_000), V2).build();
            String digest = ConfigDigest.of(changed.files()).orElseThrow();
            assertEquals(new EvaluationMemory(previous.identity(), digest, previous.loadedDigest(), true),
                    EvidenceRules.evaluate(changed, TALOS, previous).memory(), "the change is recorded");
        }
    }

    @Test
    void withoutAReadableConfigThePreviousMemoryIsPassedOnUnchanged() {
        EvaluationMemory previous = EvidenceRules.evaluate(given().build(), TALOS, null).memory();
        Observation o = given().unreadable(CRI_TOML, "EIO").build();
        assertSame(previous, EvidenceRules.evaluate(o, TALOS, previous).memory());
        assertNull(EvidenceRules.evaluate(o, TALOS, null).memory());
    }
}
