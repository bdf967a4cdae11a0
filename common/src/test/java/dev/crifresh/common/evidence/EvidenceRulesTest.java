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

    @Test
    void everyReasonIsExercised() {
        Set<Reason> seen = EnumSet.noneOf(Reason.class);
        rows().forEach(r -> seen.add(r.expected()));
        EvidenceMemoryTest.sequences().forEach(s -> s.steps().forEach(st -> seen.add(st.expected())));
        ClockStepRulesTest.rows().forEach(r -> seen.add(r.expected()));
        seen.addAll(EvidenceRulesRuntimeTest.REASONS);
        seen.addAll(IntrospectionRulesTest.REASONS);
        seen.addAll(PullPathRulesTest.REASONS);
        seen.addAll(KubeletWitnessTest.REASONS);
        assertEquals(EnumSet.allOf(Reason.class), seen);
    }

    /** What must hold for every evaluation, whatever the row. */
    static void assertConsistent(Observation o, Evaluation e) {
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
}
