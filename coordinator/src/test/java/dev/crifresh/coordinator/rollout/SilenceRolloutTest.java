package dev.crifresh.coordinator.rollout;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static dev.crifresh.coordinator.rollout.RolloutTest.annotation;
import static dev.crifresh.coordinator.rollout.RolloutTest.assertNothingLeftBehind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.driver.RebootDriver;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.RunEvents;
import dev.crifresh.coordinator.fixture.TestAgent;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.silence.AlertmanagerSilences;
import dev.crifresh.coordinator.silence.RealAlertmanager;
import dev.crifresh.coordinator.silence.SilenceSettings;
import dev.crifresh.coordinator.silence.SilenceSpec;
import dev.crifresh.coordinator.silence.Silences;
import io.vertx.core.Vertx;
import dev.crifresh.mockapi.testing.Poll;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rollout with {@code --silence-alertmanager} against the real Alertmanager (Debian's prometheus-alertmanager,
 * started by the test on a loopback port) and the mock API server: the node's silence is active while the reboot
 * driver takes it down and expired once it is back and fresh; an Alertmanager that cannot be reached is a warning
 * naming its URL (report and Event), never a stop; a rerun that resumes a crashed run's node expires the silence
 * that run left. Alerts are noise, not safety: none of this is a security test.
 */
class SilenceRolloutTest {
    @TempDir
    static Path dir;
    static RealAlertmanager am;

    private final Harness h = new Harness();

    @BeforeAll
    static void start() throws Exception {
        am = RealAlertmanager.start(dir);
    }

    @AfterAll
    static void stop() {
        if (am != null) {
            am.close();
        }
    }

    @AfterEach
    void close() {
        h.close();
    }

    /** The run's silences at {@code url}, built on the run's Vert.x. */
    private static Function<Vertx, Silences> silences(String url, CoordinatorSettings settings) {
        SilenceSettings s = new SilenceSettings(URI.create(url), SilenceSpec.DEFAULTS,
                SilenceSettings.lifetime(settings.timeouts().reboot(), settings.timeouts().attest()), settings.lease().runId());
        return vertx -> new AlertmanagerSilences(vertx, s, Clock.systemUTC());
    }

    /** Every silence crifresh created for this node (by its {@code node="<name>"} matcher), in any state. */
    private static List<JsonObject> crifreshSilences(String node) throws Exception {
        var r = am.get("/api/v2/silences");
        assertEquals(200, r.statusCode(), r.body());
        JsonArray all = new JsonArray(r.body());
        List<JsonObject> found = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            JsonObject s = all.getJsonObject(i);
            boolean forNode = s.getJsonArray("matchers").stream().map(m -> (JsonObject) m)
                    .anyMatch(m -> "node".equals(m.getString("name")) && node.equals(m.getString("value")));
            if (forNode && "crifresh".equals(s.getString("createdBy"))) {
                found.add(s);
            }
        }
        return found;
    }

    private static List<String> states(List<JsonObject> silences) {
        return silences.stream().map(s -> s.getJsonObject("status").getString("state")).toList();
    }

    @Test
    void theNodesSilenceIsActiveWhileItIsDownAndExpiredAfter() throws Exception {
        h.worker("sil-a", Verdict.STALE);
        List<String> atReboot = new CopyOnWriteArrayList<>();
        List<String> commentsAtReboot = new CopyOnWriteArrayList<>();
        RebootDriver seeing = node -> {
            // the moment the node goes down: what Alertmanager holds for it
            List<JsonObject> now = crifreshSilences(node.getMetadata().getName());
            atReboot.addAll(states(now));
            now.forEach(s -> commentsAtReboot.add(s.getString("comment")));
            h.driver.reboot(node);
        };
        CoordinatorSettings settings = Harness.fastSettings().toBuilder().runId("run-silence-a").build();
        Report r = h.run(settings, seeing, silences(am.url, settings)).rollout().report(Duration.ofSeconds(60));

        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "sil-a").outcome());
        assertEquals(List.of("active"), atReboot, "one active silence (node=\"sil-a\") when the driver was called");
        assertTrue(commentsAtReboot.get(0).contains("run-silence-a"), commentsAtReboot.toString());
        assertEquals(List.of("expired"), states(crifreshSilences("sil-a")), "the silence outlived the node's rollout");
        assertEquals(List.of(), r.warnings(), r.toJson());
        assertNothingLeftBehind(h);
    }

    @Test
    void anUnreachableAlertmanagerIsAWarningNamingItsUrlNotAStop() throws Exception {
        h.worker("sil-b", Verdict.STALE);
        String nowhere = "http://127.0.0.1:" + RealAlertmanager.freePort();
        CoordinatorSettings settings = Harness.fastSettings();
        Report r = h.run(settings, h.driver, silences(nowhere, settings)).rollout().report(Duration.ofSeconds(90));

        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "sil-b").outcome());
        assertEquals(1, h.driver.rebootsOf("sil-b"));
        assertFalse(r.warnings().isEmpty(), r.toJson());
        assertTrue(r.warnings().stream().allMatch(w -> w.contains(nowhere) && w.contains("sil-b")), r.warnings().toString());
        assertTrue(r.toJson().contains("\"warnings\""), r.toJson());
        List<String> events = h.cluster.test.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "CrifreshSilenceFailed".equals(e.getReason()))
                .map(e -> e.getType() + " " + e.getInvolvedObject().getName() + ": " + e.getMessage()).toList();
        assertFalse(events.isEmpty(), "no CrifreshSilenceFailed Event");
        assertTrue(events.stream().allMatch(e -> e.startsWith("Warning sil-b: ") && e.contains(nowhere)), events.toString());
        assertNothingLeftBehind(h);
    }

    @Test
    void aRunStoppedWhileTheNodeIsDownExpiresItsSilenceAsItEnds() throws Exception {
        h.worker("sil-d", Verdict.STALE);
        h.driver.behave("sil-d", Behaviour.NO_AGENT);
        CoordinatorSettings settings = Harness.fastSettings().toBuilder().runId("run-stopped").build();
        Harness.RolloutRun run = h.run(settings, h.driver, silences(am.url, settings)).rollout();
        Poll.until(Duration.ofSeconds(30), "sil-d verifying", () -> {
            String v = annotation(h, "sil-d", CrifreshAnnotations.ROLLOUT);
            return v != null && v.endsWith("/verifying");
        });
        assertEquals(List.of("active"), states(crifreshSilences("sil-d")));
        run.coordinator.stop(); // SIGTERM: the node is left owned for a rerun, its silence is not left behind
        Report r = run.report(Duration.ofSeconds(60));

        assertEquals(Outcome.FAILED, line(r, "sil-d").outcome(), r.toJson());
        assertEquals(List.of("expired"), states(crifreshSilences("sil-d")), "the stopped run left its silence active");
        assertEquals(List.of(), r.warnings(), r.toJson());
    }

    @Test
    void aRerunThatResumesACrashedRunsNodeExpiresTheSilenceItLeft() throws Exception {
        h.worker("sil-c", Verdict.STALE);
        h.driver.behave("sil-c", Behaviour.NO_AGENT);
        CoordinatorSettings first = Harness.fastSettings().toBuilder().runId("run-crashed").build();
        Harness.RolloutRun crashed = h.run(first, h.driver, silences(am.url, first)).rollout();
        Poll.until(Duration.ofSeconds(30), "sil-c verifying", () -> {
            String v = annotation(h, "sil-c", CrifreshAnnotations.ROLLOUT);
            return v != null && v.endsWith("/verifying");
        });
        crashed.kill();
        List<JsonObject> left = crifreshSilences("sil-c");
        assertEquals(List.of("active"), states(left), "the crashed run's silence");

        CoordinatorSettings rerun = Harness.fastSettings().toBuilder().lockTimeout(Duration.ofSeconds(15)).runId("run-rerun").build();
        Harness.RolloutRun second = h.run(rerun, h.driver, silences(am.url, rerun)).rollout();
        second.await(Duration.ofSeconds(30), "the rerun to resume sil-c", RunEvents.resumed("sil-c"));
        h.agent.attest(h.cluster, "sil-c", Verdict.FRESH, TestAgent.DESIRED);
        Report r = second.report(Duration.ofSeconds(60));

        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "sil-c").outcome());
        assertEquals(1, h.driver.rebootsOf("sil-c"), "resumed, not rebooted again");
        List<JsonObject> after = crifreshSilences("sil-c");
        assertEquals(List.of("expired"), states(after), "the leftover silence is still active: " + after);
        assertEquals(left.get(0).getString("id"), after.get(0).getString("id"));
        assertEquals(List.of(), r.warnings(), r.toJson());
        assertNothingLeftBehind(h);
    }
}
