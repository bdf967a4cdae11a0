package dev.crifresh.common.evidence;

import static dev.crifresh.common.evidence.Given.BOOT;
import static dev.crifresh.common.evidence.Given.BOOT_ID;
import static dev.crifresh.common.evidence.Given.CONTAINERD_TOML;
import static dev.crifresh.common.evidence.Given.CRI_TOML;
import static dev.crifresh.common.evidence.Given.CRI_V1;
import static dev.crifresh.common.evidence.Given.PID;
import static dev.crifresh.common.evidence.Given.REGISTRIES_PART;
import static dev.crifresh.common.evidence.Given.cri;
import static dev.crifresh.common.evidence.Given.given;
import static dev.crifresh.common.evidence.Given.ms;
import static dev.crifresh.common.evidence.Given.ns;
import static dev.crifresh.common.evidence.Reason.CLOCK_ANOMALY;
import static dev.crifresh.common.evidence.Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START;
import static dev.crifresh.common.evidence.Reason.CONFIG_UNCHANGED_SINCE_LOAD;
import static dev.crifresh.common.evidence.Reason.CONFIG_UNREADABLE;
import static dev.crifresh.common.evidence.Reason.CONFIG_PATH_MOUNTED;
import static dev.crifresh.common.evidence.Reason.CONFIG_UNWATCHED_IMPORT;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_START_IN_FUTURE;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_AMBIGUOUS;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_NOT_FOUND;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_NOT_SERVING;
import static dev.crifresh.common.evidence.Reason.CONTAINERD_STARTED_AFTER_CONFIG;
import static dev.crifresh.common.evidence.Reason.HOST_UNREADABLE;
import static dev.crifresh.common.evidence.Reason.ORDERING_WITHIN_MARGIN;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@SuppressWarnings("checkstyle:filelength") // the rules' tables of cases
class EvidenceRulesTest {
    private static final RuleSettings TALOS = RuleSettings.defaults();
    private static final RuleSettings GENERIC = new RuleSettings(ms(50), false);
    private static final String SOCKET = "/run/containerd/containerd.sock";
    private static final Duration BEFORE_BOOT_1970 = Duration.between(BOOT, Instant.parse("1970-01-01T00:00:03Z"));

    private static RuleSettings margin(long millis) {
        return new RuleSettings(ms(millis), true);
    }

    /** One observation evaluated without memory. */
    record Row(String name, Given given, RuleSettings settings, Reason expected) {
        @Override
        public String toString() {
            return name + " → " + expected.code();
        }
    }

    private static Row row(String name, Given given, Reason expected) {
        return new Row(name, given, TALOS, expected);
    }

    private static Row row(String name, Given given, RuleSettings settings, Reason expected) {
        return new Row(name, given, settings, expected);
    }

    @SuppressWarnings("checkstyle:methodlength") // a table of cases, one row per rule outcome
    static List<Row> rows() {
        return List.of(
                row("ordinary Talos boot: containerd 2.95 s after the config", given(), CONTAINERD_STARTED_AFTER_CONFIG),
                row("ordinary boot, generic mode", given(), GENERIC, CONTAINERD_STARTED_AFTER_CONFIG),
                row("ordinary boot with its directories rendered before containerd",
                        given().directory("/etc/cri", ms(1000)).directory("/etc/cri/conf.d", ms(2050))
                                .changed(CRI_TOML, ms(2060), "ctime"), CONTAINERD_STARTED_AFTER_CONFIG),

                // Issue 14: stamps other than the mtime, which user space cannot set back.
                row("touch -d: mtime set back, ctime after containerd started",
                        given().changed(CRI_TOML, ms(30_000), "ctime"), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("touch -d in generic mode", given().changed(CRI_TOML, ms(30_000), "ctime"), GENERIC,
                        CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("ctime within the margin of containerd's start",
                        given().changed(CRI_TOML, ms(4990), "ctime"), ORDERING_WITHIN_MARGIN),
                row("symlink re-pointed to an older file after containerd started",
                        given().changed(CRI_TOML, ms(20_000), "ctime of symlink /etc/cri/conf.d/cri.toml"),
                        CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("override deleted after containerd started: only the directory shows it",
                        given().directory("/etc/cri/conf.d", ms(40_000)), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("a ctime from the future", given().changed(CRI_TOML, ms(90_000), "ctime"), CLOCK_ANOMALY),
                row("directory unreadable", given().unreadableDirectory("/etc/cri/conf.d", "EACCES"),
                        CONFIG_UNREADABLE),
                row("containerd loads a file nobody watches",
                        given().unwatchedImport("/etc/cri/conf.d/zz-override.toml"), CONFIG_UNWATCHED_IMPORT),
                row("unwatched import outranks an ordering that looks fresh",
                        given().unwatchedImport("/etc/cri/conf.d/zz-override.toml").unwatchedImport("/x.toml"),
                        GENERIC, CONFIG_UNWATCHED_IMPORT),
                row("a tree mounted over conf.d: no stamp moves, ordering looks fresh",
                        given().mounted("a ext4 file system (/staged of /dev/sda1) is mounted on /etc/cri/conf.d"),
                        CONFIG_PATH_MOUNTED),
                row("a mount outranks an ordering that looks fresh in generic mode too",
                        given().mounted("a tmpfs file system (/ of tmpfs) is mounted on /etc"), GENERIC,
                        CONFIG_PATH_MOUNTED),
                row("containerd started after the uptime it was read at",
                        given().startTicks(7000), CONTAINERD_START_IN_FUTURE),
                row("containerd start just inside the uptime stays comparable",
                        given().startTicks(5999), CONTAINERD_STARTED_AFTER_CONFIG),

                // Rule 1, in its order.
                row("boot id unreadable", given().noBootId(), HOST_UNREADABLE),
                row("uptime unreadable", given().noClock(), HOST_UNREADABLE),
                row("CLK_TCK zero", given().clkTck(0), HOST_UNREADABLE),
                row("CLK_TCK negative", given().clkTck(-100), HOST_UNREADABLE),
                row("host unreadable outranks everything else",
                        given().noBootId().containerds().unreadable(CRI_TOML, "EACCES"), HOST_UNREADABLE),
                row("no CRI containerd", given().containerds(), CONTAINERD_NOT_FOUND),
                row("no containerd outranks an unreadable config",
                        given().containerds().unreadable(CRI_TOML, "EACCES"), CONTAINERD_NOT_FOUND),
                row("two CRI containerds", given().containerds(cri(PID, 500), cri(1300, 700)), CONTAINERD_AMBIGUOUS),
                // F1: a containerd that refuses its config has Talos' command line and started after the files
                row("containerd not listening yet (loading its config, or refusing it): ordering looks fresh",
                        given().listener(ContainerdListener.notListening(SOCKET, null)), CONTAINERD_NOT_SERVING),
                row("containerd not listening, generic mode",
                        given().listener(ContainerdListener.notListening(SOCKET, null)), GENERIC, CONTAINERD_NOT_SERVING),
                row("containerd's socket table unreadable",
                        given().listener(ContainerdListener.unreadable(SOCKET, "EACCES")), CONTAINERD_NOT_SERVING),
                row("containerd's socket table not read at all",
                        given().listener(null), CONTAINERD_NOT_SERVING),
                row("not serving outranks a forward clock step that would prove fresh by the socket's clock",
                        given().allFilesAt(ms(-3_600_000)).socket(ms(-3_599_000))
                                .listener(ContainerdListener.notListening(SOCKET, null)), CONTAINERD_NOT_SERVING),
                row("no containerd outranks not serving",
                        given().containerds().listener(null), CONTAINERD_NOT_FOUND),
                row("an unreadable config outranks not serving",
                        given().unreadable(CRI_TOML, "EACCES").listener(ContainerdListener.notListening(SOCKET, null)),
                        CONFIG_UNREADABLE),
                row("not serving outranks a mount on the way",
                        given().mounted("/etc/cri/conf.d is a mount point")
                                .listener(ContainerdListener.notListening(SOCKET, null)), CONTAINERD_NOT_SERVING),
                row("serving, config changed after start: still stale",
                        given().criToml(ms(55_000), "## merged v2\n"), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("three CRI containerds",
                        given().containerds(cri(PID, 500), cri(1300, 700), cri(1400, 900)), CONTAINERD_AMBIGUOUS),
                row("two containerds outrank an unreadable config",
                        given().containerds(cri(PID, 500), cri(1300, 700)).unreadable(CRI_TOML, "EACCES"),
                        CONTAINERD_AMBIGUOUS),
                row("no config file watched", given().noFiles(), CONFIG_UNREADABLE),
                row("missing .part file",
                        given().unreadable(REGISTRIES_PART, "NoSuchFileException: " + REGISTRIES_PART), CONFIG_UNREADABLE),
                row("permission denied on cri.toml",
                        given().unreadable(CRI_TOML, "AccessDeniedException: " + CRI_TOML), CONFIG_UNREADABLE),
                row("oversized containerd.toml",
                        given().unreadable(CONTAINERD_TOML, "larger than the 1 MiB limit: 5242880 bytes"),
                        CONFIG_UNREADABLE),
                row("unreadable file, generic mode", given().unreadable(CRI_TOML, "EIO"), GENERIC, CONFIG_UNREADABLE),
                row("unreadable config outranks a clock anomaly",
                        given().touch(CONTAINERD_TOML, ms(-5000)).unreadable(CRI_TOML, "EIO"), CONFIG_UNREADABLE),
                row("readable entry without an mtime",
                        given().raw(new WatchedFile(CRI_TOML, null, null, null, 3, Given.sha("x"), null)), CONFIG_UNREADABLE),
                row("readable entry without a hash",
                        given().raw(new WatchedFile(CRI_TOML, BOOT.plusSeconds(2), BOOT.plusSeconds(2), "mtime", 3, null, null)), CONFIG_UNREADABLE),

                // Rule 2: rendered this boot (Talos mode), no writes from the future (both modes).
                row("talos: a config 1 s older than the boot",
                        given().touch(CONTAINERD_TOML, ms(-1000)), CLOCK_ANOMALY),
                row("talos: a config exactly the margin before boot is allowed",
                        given().touch(CONTAINERD_TOML, ms(-50)), CONTAINERD_STARTED_AFTER_CONFIG),
                row("talos: a config the margin + 1 ns before boot",
                        given().touch(CONTAINERD_TOML, ms(-50).minus(ns(1))), CLOCK_ANOMALY),
                row("talos: the clock error widens the allowance (−70 ms with 20 ms error)",
                        given().clockError(ms(20)).touch(CONTAINERD_TOML, ms(-70)), CONTAINERD_STARTED_AFTER_CONFIG),
                row("talos: −70 ms − 1 ns with 20 ms error",
                        given().clockError(ms(20)).touch(CONTAINERD_TOML, ms(-70).minus(ns(1))), CLOCK_ANOMALY),
                row("talos: a negative clock error counts as its size",
                        given().clockError(ms(-20)).touch(CONTAINERD_TOML, ms(-70)), CONTAINERD_STARTED_AFTER_CONFIG),
                row("generic: a config an hour older than the boot",
                        given().touch(CONTAINERD_TOML, ms(-3_600_000)), GENERIC, CONTAINERD_STARTED_AFTER_CONFIG),
                row("talos: RTC-less node, configs stamped 1970 before NTP stepped the clock",
                        given().allFilesAt(BEFORE_BOOT_1970), CLOCK_ANOMALY),
                row("generic: the same RTC-less node",
                        given().allFilesAt(BEFORE_BOOT_1970), GENERIC, CONTAINERD_STARTED_AFTER_CONFIG),
                row("negative offset: boot wall time before 1970",
                        given().bootAt(Instant.EPOCH.minusSeconds(10)), CONTAINERD_STARTED_AFTER_CONFIG),
                row("negative offset, talos: margin + 1 ns before boot",
                        given().bootAt(Instant.EPOCH.minusSeconds(10)).touch(CONTAINERD_TOML, ms(-50).minus(ns(1))),
                        CLOCK_ANOMALY),
                row("a write 1 s from the future", given().newest(ms(61_000)), CLOCK_ANOMALY),
                row("a write from the future, generic mode", given().newest(ms(61_000)), GENERIC, CLOCK_ANOMALY),
                row("a write exactly the margin after the read is not from the future",
                        given().newest(ms(60_050)), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("a write the margin + 1 ns after the read",
                        given().newest(ms(60_050).plus(ns(1))), CLOCK_ANOMALY),
                row("future boundary with 20 ms clock error",
                        given().clockError(ms(20)).newest(ms(60_070)), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("future boundary with 20 ms clock error + 1 ns",
                        given().clockError(ms(20)).newest(ms(60_070).plus(ns(1))), CLOCK_ANOMALY),

                // Rule 3 and its margin boundary: equal is stale, one nanosecond more is fresh.
                row("containerd exactly the margin after the newest write",
                        given().newest(ms(4950)), ORDERING_WITHIN_MARGIN),
                row("containerd the margin + 1 ns after the newest write",
                        given().newest(ms(4950).minus(ns(1))), CONTAINERD_STARTED_AFTER_CONFIG),
                row("60 ms gap is not enough with 20 ms clock error",
                        given().clockError(ms(20)).newest(ms(4940)), ORDERING_WITHIN_MARGIN),
                row("effective margin 70 ms: exactly 70 ms",
                        given().clockError(ms(20)).newest(ms(4930)), ORDERING_WITHIN_MARGIN),
                row("effective margin 70 ms: 70 ms + 1 ns",
                        given().clockError(ms(20)).newest(ms(4930).minus(ns(1))), CONTAINERD_STARTED_AFTER_CONFIG),
                row("zero margin: equal times are stale",
                        given().newest(ms(5000)), margin(0), ORDERING_WITHIN_MARGIN),
                row("zero margin: 1 ns earlier config is fresh",
                        given().newest(ms(5000).minus(ns(1))), margin(0), CONTAINERD_STARTED_AFTER_CONFIG),
                row("2 s margin: a 1.5 s gap is too close", given().newest(ms(3500)), margin(2000), ORDERING_WITHIN_MARGIN),
                row("only the newest file counts (a .part at 4.960 s)",
                        given().touch(REGISTRIES_PART, ms(4960)), ORDERING_WITHIN_MARGIN),
                row("CLK_TCK 250: 1251 ticks = 5.004 s, exactly the margin",
                        given().clkTck(250).startTicks(1251).newest(ms(4954)), ORDERING_WITHIN_MARGIN),
                row("CLK_TCK 250: 1 ns more",
                        given().clkTck(250).startTicks(1251).newest(ms(4954).minus(ns(1))),
                        CONTAINERD_STARTED_AFTER_CONFIG),
                row("CLK_TCK 3: 16 ticks rounds down to 5.333333333 s (margin exactly)",
                        given().clkTck(3).startTicks(16).newest(ns(5_283_333_333L)), ORDERING_WITHIN_MARGIN),
                row("CLK_TCK 3: 1 ns more",
                        given().clkTck(3).startTicks(16).newest(ns(5_283_333_332L)), CONTAINERD_STARTED_AFTER_CONFIG),

                // Rule 5.
                row("containerd 30 ms before the newest write", given().newest(ms(5030)), ORDERING_WITHIN_MARGIN),
                row("newest write exactly the margin after containerd", given().newest(ms(5050)), ORDERING_WITHIN_MARGIN),
                row("newest write the margin + 1 ns after containerd",
                        given().newest(ms(5050).plus(ns(1))), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("config rewritten 3 s after containerd started",
                        given().newest(ms(8000)), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("credential patched 50 s later",
                        given().criToml(ms(55_000), "## merged v2\n"), CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("credential patched, generic mode",
                        given().criToml(ms(55_000), "## merged v2\n"), GENERIC, CONFIG_CHANGED_AFTER_CONTAINERD_START),
                row("containerd at tick 0, config 2 s later",
                        given().startTicks(0), CONFIG_CHANGED_AFTER_CONTAINERD_START));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void oneObservation(Row row) {
        Observation observation = row.given().build();
        Evaluation e = EvidenceRules.evaluate(observation, row.settings(), null);

        assertEquals(row.expected(), e.reason(), e.message());
        assertConsistent(observation, e);
        assertEquals(e, EvidenceRules.evaluate(observation, row.settings(), null), "same inputs, same output");
        assertEquals(e, EvidenceRules.evaluate(row.given().buildReversed(), row.settings(), null),
                "file order must not matter");
    }

    @Test
    void aContainerdStillStartingIsUnknownUntilItListensThenFreshByOrdering() {
        Evaluation starting = EvidenceRules.evaluate(
                given().listener(ContainerdListener.notListening(SOCKET, null)).build(), TALOS, null);
        assertEquals(CONTAINERD_NOT_SERVING, starting.reason(), starting.message());
        assertEquals(Verdict.UNKNOWN, starting.verdict());
        assertEquals("containerd (pid 1234) has not bound its socket /run/containerd/containerd.sock: it has not"
                + " finished loading its config, or refused it", starting.message());
        assertNull(starting.memory().loadedDigest(), "nothing is proven loaded while it does not serve");

        Evaluation serving = EvidenceRules.evaluate(given().build(), TALOS, starting.memory());
        assertEquals(CONTAINERD_STARTED_AFTER_CONFIG, serving.reason(), serving.message());
        assertEquals(Proof.ORDERING, serving.proof());
    }

    @Test
    void anUnreadableSocketTableNamesWhy() {
        Evaluation e = EvidenceRules.evaluate(
                given().listener(ContainerdListener.unreadable(SOCKET, "NoSuchFileException: /proc/1234/net/unix"))
                        .build(), TALOS, null);
        assertEquals("whether containerd (pid 1234) listens on /run/containerd/containerd.sock cannot be read"
                + " (NoSuchFileException: /proc/1234/net/unix)", e.message());
    }

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

    private static final String V2 = "## merged v2\n";

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
            assertConsistent(observation, e);
            assertEquals(e, EvidenceRules.evaluate(observation, TALOS, memory), "step " + (i + 1) + " deterministic");
            memory = e.memory();
        }
    }

    @Test
    void everyReasonIsExercised() {
        Set<Reason> seen = EnumSet.noneOf(Reason.class);
        rows().forEach(r -> seen.add(r.expected()));
        sequences().forEach(s -> s.steps().forEach(st -> seen.add(st.expected())));
        ClockStepRulesTest.rows().forEach(r -> seen.add(r.expected()));
        seen.addAll(EvidenceRulesRuntimeTest.REASONS);
        seen.addAll(IntrospectionRulesTest.REASONS);
        seen.addAll(PullPathRulesTest.REASONS);
        seen.addAll(KubeletWitnessTest.REASONS);
        assertEquals(EnumSet.allOf(Reason.class), seen);
    }

    /** What must hold for every evaluation, whatever the row. */
    private static void assertConsistent(Observation o, Evaluation e) {
        boolean single = o.candidates().size() == 1;
        String digest = ConfigDigest.of(o.files()).orElse(null);
        assertAll(
                () -> assertEquals(e.reason().verdict(), e.verdict(), "verdict follows the reason"),
                () -> assertEquals(expectedProof(e.reason()), e.proof(), "proof"),
                () -> assertNotNull(e.message()),
                () -> assertFalse(e.message().isBlank(), "message"),
                () -> assertFalse(e.message().contains("\n"), "one line: " + e.message()),
                () -> assertFalse(e.message().contains("; attestation="), "no marker in the sentence"),
                () -> assertEquals(single ? o.candidates().get(0) : null, e.containerd(), "containerd"),
                () -> assertEquals(digest, e.configDigest(), "digest"),
                () -> {
                    if (e.verdict() == Verdict.FRESH) {
                        assertTrue(e.message().contains("pid " + e.containerd().pid()), e.message());
                        assertNotNull(e.containerdStartedAt());
                        assertEquals(e.configDigest(), e.memory().loadedDigest(), "fresh means loaded = current");
                    }
                },
                () -> {
                    if (single && o.bootId() != null && digest != null) {
                        ProcessSample p = o.candidates().get(0);
                        assertEquals(new ContainerdIdentity(o.bootId(), p.pid(), p.startTicks()),
                                e.memory().identity(), "memory identity");
                        assertEquals(digest, e.memory().lastDigest(), "memory last digest");
                    }
                });
    }

    private static Proof expectedProof(Reason reason) {
        if (reason == CONTAINERD_STARTED_AFTER_CONFIG) {
            return Proof.ORDERING;
        }
        return reason == CONFIG_UNCHANGED_SINCE_LOAD ? Proof.CONTENT : Proof.NONE;
    }

    // ---- the other fields of an evaluation ----

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

    // ---- small helpers ----

    static Stream<Arguments> tickConversions() {
        return Stream.of(
                Arguments.of(500, 100, Duration.ofSeconds(5)),
                Arguments.of(1, 100, ms(10)),
                Arguments.of(0, 100, Duration.ZERO),
                Arguments.of(1, 3, ns(333_333_333)),
                Arguments.of(2, 3, ns(666_666_666)),
                Arguments.of(1251, 250, ms(5004)),
                Arguments.of(Long.MAX_VALUE, 100, Duration.ofSeconds(Long.MAX_VALUE / 100, 70_000_000)),
                Arguments.of(999_999_999_999L, 1_000_000_000_000L, ns(999_999_999)));
    }

    @ParameterizedTest(name = "{0} ticks at {1}/s = {2}")
    @MethodSource("tickConversions")
    void ticksConvertExactlyAndRoundDown(long ticks, long clkTck, Duration expected) {
        assertEquals(expected, EvidenceRules.ticksSinceBoot(ticks, clkTck));
    }

    @ParameterizedTest(name = "{0} ns → {1}")
    @CsvSource({
            "2950000000, 2.950 s",
            "1000000000, 1.000 s",
            "61999999999, 61.999 s",
            "119999999999, 119.999 s",
            "120000000000, 120.000 s (2 min)",
            "3453794204000000, 3453794.204 s (40 d)",
            "-7380120000000, -7380.120 s (-2 h)",
            "50000000, 50 ms",
            "40500000, 40.5 ms",
            "1, 0.000001 ms",
            "0, 0 ms",
            "999999999, 999.999999 ms",
            "-30000000, -30 ms"})
    void durationsReadAsPeopleWriteThem(long nanos, String expected) {
        assertEquals(expected, Durations.text(Duration.ofNanos(nanos)));
    }

    @Test
    void oneLineFlattensAndShortensHostText() {
        assertEquals("a b c", EvidenceRules.oneLine(" a\nb\r\n\tc "));
        String longText = "x".repeat(500);
        assertEquals(200, EvidenceRules.oneLine(longText).length());
    }

    @Test
    void settingsRejectANegativeOrMissingMargin() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RuleSettings(ms(-1), true));
        assertTrue(e.getMessage().contains("margin"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RuleSettings(null, false));
        assertEquals(Duration.ZERO, new RuleSettings(Duration.ZERO, false).margin());
        assertEquals(new RuleSettings(ms(50), true), RuleSettings.defaults());
    }
}
