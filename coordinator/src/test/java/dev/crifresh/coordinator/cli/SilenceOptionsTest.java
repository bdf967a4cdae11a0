package dev.crifresh.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.silence.SilenceMatcher;
import dev.crifresh.coordinator.silence.SilenceSpec;
import dev.crifresh.coordinator.silence.SilenceSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The silence flags parsed by picocli and validated, through the coordinator's real error handling (exit 2). */
class SilenceOptionsTest {

    @Command(name = "silence-check")
    static final class Check implements Callable<Integer> {
        @Mixin
        SilenceOptions silence;
        Optional<SilenceSettings> settings;

        @Override
        public Integer call() {
            settings = silence.settings("run-1234abcd", Duration.ofMinutes(10), Duration.ofMinutes(5));
            return 0;
        }
    }

    private record Run(int exit, String err, Check check) {
    }

    private static Run run(String... args) {
        Check check = new Check();
        CommandLine cmd = CoordinatorMain.commandLine().addSubcommand(check);
        StringWriter err = new StringWriter();
        cmd.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 1];
        all[0] = "silence-check";
        System.arraycopy(args, 0, all, 1, args.length);
        return new Run(cmd.execute(all), err.toString(), check);
    }

    @Test
    void withoutAnAlertmanagerNothingIsSilenced() {
        Run r = run();
        assertEquals(0, r.exit(), r.err());
        assertEquals(Optional.empty(), r.check().settings);
    }

    @Test
    void theDefaultsLastUntilTheRebootAndAttestTimeoutsAndCarryTheRunId() {
        Run r = run("--silence-alertmanager", "http://alertmanager.monitoring:9093/");
        assertEquals(0, r.exit(), r.err());
        SilenceSettings s = r.check().settings.orElseThrow();
        assertEquals(URI.create("http://alertmanager.monitoring:9093/"), s.alertmanager());
        assertEquals(SilenceSpec.DEFAULTS, s.silences());
        assertEquals(Duration.ofMinutes(15), s.lifetime());
        assertTrue(s.comment("worker-a").contains("run-1234abcd") && s.comment("worker-a").contains("worker-a"), s.comment("worker-a"));
    }

    @Test
    void givenMatchersReplaceTheDefaultsOneSilenceEach() {
        Run r = run("--silence-alertmanager=http://127.0.0.1:9093", "--silence-matcher", "kubernetes_node=\"{node}\"",
                "--silence-matcher={hostname=\"{node}\",severity!=\"critical\"}");
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of(new SilenceSpec(List.of(new SilenceMatcher("kubernetes_node", "{node}", false, true))),
                new SilenceSpec(List.of(new SilenceMatcher("hostname", "{node}", false, true),
                        new SilenceMatcher("severity", "critical", false, false)))), r.check().settings.orElseThrow().silences());
    }

    @Test
    void mistakesAreOneLineUsageErrorsNamingTheFlagAndValue() {
        assertUsage(run("--silence-alertmanager", "alertmanager:9093"),
                "--silence-alertmanager 'alertmanager:9093' is not an http(s) URL with a host");
        assertUsage(run("--silence-alertmanager", "http://a b"), "--silence-alertmanager 'http://a b' is not a URL");
        assertUsage(run("--silence-alertmanager", "http://am:9093/?x=1"), "without ?query");
        assertUsage(run("--silence-matcher", "node=\"{node}\""), "--silence-matcher needs --silence-alertmanager URL");
        assertUsage(run("--silence-alertmanager", "http://am:9093", "--silence-matcher", "node"),
                "--silence-matcher 'node' is not a matcher");
        assertUsage(run("--silence-alertmanager", "http://am:9093", "--silence-matcher", "node=~\"[\""),
                "not a valid regex");
        assertUsage(run("--silence-alertmanager", "http://am:9093", "--silence-matcher", "node!=\"{node}\""),
                "would silence alerts of every node");
    }

    private static void assertUsage(Run r, String expected) {
        assertEquals(2, r.exit(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("crifresh-coordinator: ") && r.err().contains(expected), r.err());
        assertTrue(!r.err().contains("Exception") && !r.err().contains("\tat "), r.err());
    }
}
