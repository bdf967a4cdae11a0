package dev.crifresh.common.evidence;

import static dev.crifresh.common.evidence.Given.BOOT;
import static dev.crifresh.common.evidence.Given.CONTAINERD_TOML;
import static dev.crifresh.common.evidence.Given.CRI_TOML;
import static dev.crifresh.common.evidence.Given.REGISTRIES_PART;
import static dev.crifresh.common.evidence.Given.given;
import static dev.crifresh.common.evidence.Given.ms;
import static dev.crifresh.common.evidence.Reason.CLOCK_ANOMALY;
import static dev.crifresh.common.evidence.Reason.CLOCK_STEPPED;
import static dev.crifresh.common.evidence.Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START;
import static dev.crifresh.common.evidence.Reason.CONFIG_UNCHANGED_SINCE_LOAD;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_STARTED_AFTER_CONFIG;
import static dev.crifresh.common.evidence.Reason.ORDERING_WITHIN_MARGIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rules with containerd's socket as a clock witness (DESIGN, "The clock witness"). Threat model: clock
 * steps are inside it (crifresh defends against them); every row is either a step the witness must see
 * through without a false fresh, or a correct clock it must not disturb.
 *
 * <p>Times are since the (true) boot; containerd starts at 5.000 s and binds its socket at 5.040 s in the
 * clock of its start. A clock that was {@code offset} off until a step has every earlier stamp shifted by it.
 */
class ClockStepRulesTest {
    private static final RuleSettings TALOS = RuleSettings.defaults();
    /** Wall clock minus true time on a board without a real-time clock: it starts at the epoch. */
    private static final Duration EPOCH = Duration.between(BOOT, Instant.EPOCH);
    private static final Duration SLOW = Duration.ofSeconds(-5);
    private static final Duration FAST = Duration.ofHours(1);
    private static final Duration BIND = ms(5040);

    record Row(String name, Given given, Reason expected, Proof proof) {
        @Override
        public String toString() {
            return name + " → " + expected.code();
        }
    }

    /** The three config files written at 1.000, 2.000 and 2.050 s of a clock {@code offset} off. */
    private static Given bootWithClock(Duration offset) {
        return given().touch(CONTAINERD_TOML, ms(1000).plus(offset)).touch(REGISTRIES_PART, ms(2000).plus(offset))
                .touch(CRI_TOML, ms(2050).plus(offset));
    }

    static List<Row> rows() {
        return List.of(
                new Row("correct clock, socket bound 40 ms after the start", given().socket(BIND),
                        CONTAINERD_STARTED_AFTER_CONFIG, Proof.ORDERING),
                new Row("correct clock, no socket", given().unusableSocket("no such file"),
                        CONTAINERD_STARTED_AFTER_CONFIG, Proof.ORDERING),
                new Row("correct clock, config written after the start", given().newest(ms(7000)).socket(BIND),
                        CONFIG_CHANGED_AFTER_CONTAINERD_START, Proof.NONE),

                // A board without a real-time clock: everything before the step is stamped near 1970.
                new Row("epoch clock, stepped after containerd bound its socket",
                        bootWithClock(EPOCH).socket(BIND.plus(EPOCH)), CONTAINERD_STARTED_AFTER_CONFIG,
                        Proof.SOCKET_ORDERING),
                new Row("epoch clock without the witness: rule 2, as before", bootWithClock(EPOCH),
                        CLOCK_ANOMALY, Proof.NONE),
                new Row("epoch clock, the socket touched since it was bound: no witness, rule 2",
                        bootWithClock(EPOCH).socket(BIND.plus(EPOCH), ms(30_000)), CLOCK_ANOMALY, Proof.NONE),
                new Row("epoch clock, cri.toml rewritten after the step (true time)",
                        bootWithClock(EPOCH).newest(ms(30_000)).socket(BIND.plus(EPOCH)),
                        CONFIG_CHANGED_AFTER_CONTAINERD_START, Proof.NONE),

                // Five seconds slow, the registry auth written at 8 s, after containerd's start, then a step.
                new Row("5 s slow, auth written after containerd's start: no false fresh",
                        given().touch(CONTAINERD_TOML, ms(6000).plus(SLOW)).touch(REGISTRIES_PART, ms(8000).plus(SLOW))
                                .touch(CRI_TOML, ms(8000).plus(SLOW)).socket(BIND.plus(SLOW)),
                        CONFIG_CHANGED_AFTER_CONTAINERD_START, Proof.NONE),
                new Row("the same without the witness: the false fresh the witness closes",
                        given().touch(CONTAINERD_TOML, ms(6000).plus(SLOW)).touch(REGISTRIES_PART, ms(8000).plus(SLOW))
                                .touch(CRI_TOML, ms(8000).plus(SLOW)),
                        CONTAINERD_STARTED_AFTER_CONFIG, Proof.ORDERING),
                new Row("5 s slow, base config before the boot: rule 2 silenced by the forward step",
                        bootWithClock(SLOW).socket(BIND.plus(SLOW)), CONTAINERD_STARTED_AFTER_CONFIG,
                        Proof.SOCKET_ORDERING),

                // The margin and start-up reserve in the socket's clock: 50 ms + 2 s, strict.
                new Row("newest change exactly margin + reserve before the socket",
                        bootWithClock(SLOW).touch(CRI_TOML, BIND.plus(SLOW).minus(ms(2050))).socket(BIND.plus(SLOW)),
                        ORDERING_WITHIN_MARGIN, Proof.NONE),
                new Row("newest change 1 ms more before the socket",
                        bootWithClock(SLOW).touch(CRI_TOML, BIND.plus(SLOW).minus(ms(2051))).socket(BIND.plus(SLOW)),
                        CONTAINERD_STARTED_AFTER_CONFIG, Proof.SOCKET_ORDERING),
                new Row("newest change 1.5 s before the socket: inside the start-up reserve",
                        bootWithClock(SLOW).touch(CRI_TOML, BIND.plus(SLOW).minus(ms(1500))).socket(BIND.plus(SLOW)),
                        ORDERING_WITHIN_MARGIN, Proof.NONE),
                new Row("newest change at the socket's stamp exactly",
                        bootWithClock(SLOW).touch(CRI_TOML, BIND.plus(SLOW)).socket(BIND.plus(SLOW)),
                        CONFIG_CHANGED_AFTER_CONTAINERD_START, Proof.NONE),

                // An hour fast, then stepped back.
                new Row("an hour fast: stepped back, nothing can be ordered",
                        bootWithClock(FAST).socket(BIND.plus(FAST)), CLOCK_STEPPED, Proof.NONE),
                new Row("an hour fast, the config from before the boot too",
                        bootWithClock(FAST).touch(CONTAINERD_TOML, ms(-7200)).socket(BIND.plus(FAST)),
                        CLOCK_STEPPED, Proof.NONE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void evaluates(Row row) {
        Evaluation e = EvidenceRules.evaluate(row.given().build(), TALOS, null);
        assertEquals(row.expected(), e.reason(), row.name() + ": " + e.message());
        assertEquals(row.expected().verdict(), e.verdict());
        assertEquals(row.proof(), e.proof(), row.name() + ": " + e.message());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void theOrderOfTheFilesDoesNotMatter(Row row) {
        Evaluation e = EvidenceRules.evaluate(row.given().buildReversed(), TALOS, null);
        assertEquals(row.expected(), e.reason(), row.name());
    }

    @Test
    void aSocketOrderingProofIsRememberedSoTheContentProofHoldsAfterwards() {
        Observation first = bootWithClock(EPOCH).socket(BIND.plus(EPOCH)).build();
        Evaluation proven = EvidenceRules.evaluate(first, TALOS, null);
        assertEquals(Proof.SOCKET_ORDERING, proven.proof());
        assertEquals(proven.configDigest(), proven.memory().loadedDigest());
    }

    @Test
    void aBackwardStepKeepsAFreshnessProvenBeforeItOnlyThroughTheContent() {
        // Proven fresh on ordering while the clock agreed with the socket...
        Observation before = given().socket(BIND).build();
        Evaluation proven = EvidenceRules.evaluate(before, TALOS, null);
        assertEquals(Proof.ORDERING, proven.proof());
        // ...then the clock is stepped back an hour: the kernel's boot wall time moves, the stamps do not.
        Observation after = new Observation(before.bootId(), new BootClock(BOOT.minus(FAST), Duration.ZERO), null,
                before.clkTck(), before.candidates(), before.files(), before.directories(), before.unwatchedImports(),
                before.observedAt().minus(FAST), before.mountProblems(), before.containerdSocket(), null,
                before.listener());
        Evaluation same = EvidenceRules.evaluate(after, TALOS, proven.memory());
        assertEquals(CONFIG_UNCHANGED_SINCE_LOAD, same.reason(), same.message());
        assertEquals(Proof.CONTENT, same.proof());
        // Without that memory the same observation is unknown.
        Evaluation fresh = EvidenceRules.evaluate(after, TALOS, null);
        assertEquals(CLOCK_STEPPED, fresh.reason(), fresh.message());
        assertTrue(fresh.message().contains("stepped back"), fresh.message());
    }

    @Test
    void aLiveChangeTurnsSocketOrderingOff() {
        Given node = bootWithClock(EPOCH).socket(BIND.plus(EPOCH));
        Evaluation first = EvidenceRules.evaluate(node.build(), TALOS, null);
        assertEquals(Proof.SOCKET_ORDERING, first.proof());
        // The agent sees the config change while the same containerd runs, stamped (wrongly) long ago.
        Observation changed = node.criToml(ms(2060).plus(EPOCH), "## merged v2\n").build();
        Evaluation second = EvidenceRules.evaluate(changed, TALOS, first.memory());
        assertEquals(CONFIG_CHANGED_AFTER_CONTAINERD_START, second.reason(), second.message());
    }
}
