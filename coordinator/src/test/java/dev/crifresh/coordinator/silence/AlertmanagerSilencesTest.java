package dev.crifresh.coordinator.silence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Silences against the real Alertmanager (Debian's prometheus-alertmanager 0.25, API v2), started by the test.
 * The silence must exist and mute the node's alerts while the node is down, and be expired after; an
 * Alertmanager that is unreachable or answers 5xx gives a warning naming its URL and never a failed future.
 */
class AlertmanagerSilencesTest {
    private static final Duration REBOOT = Duration.ofMinutes(10);
    private static final Duration ATTEST = Duration.ofMinutes(5);

    @TempDir
    static Path dir;
    static RealAlertmanager am;
    static Vertx vertx;

    @BeforeAll
    static void start() throws Exception {
        am = RealAlertmanager.start(dir);
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        if (am != null) {
            am.close();
        }
    }

    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    private static AlertmanagerSilences silences(String url, String runId, Instant now, List<SilenceSpec> specs) {
        SilenceSettings settings = new SilenceSettings(URI.create(url), specs, SilenceSettings.lifetime(REBOOT, ATTEST), runId);
        return new AlertmanagerSilences(vertx, settings, Clock.fixed(now, ZoneOffset.UTC));
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static JsonObject silence(String id) throws Exception {
        var r = am.get("/api/v2/silence/" + id);
        assertEquals(200, r.statusCode(), r.body());
        return new JsonObject(r.body());
    }

    /** Alertmanager's own verdict on an alert with these labels: the ids of the silences muting it. */
    private static List<String> silencedBy(String labelsJson) throws Exception {
        var posted = am.post("/api/v2/alerts", "[{\"labels\":" + labelsJson + "}]");
        assertEquals(200, posted.statusCode(), posted.body());
        JsonObject labels = new JsonObject(labelsJson);
        JsonArray alerts = new JsonArray(am.get("/api/v2/alerts").body());
        for (int i = 0; i < alerts.size(); i++) {
            JsonObject a = alerts.getJsonObject(i);
            if (a.getJsonObject("labels").equals(labels)) {
                return a.getJsonObject("status").getJsonArray("silencedBy").stream().map(String.class::cast).toList();
            }
        }
        throw new AssertionError("Alertmanager lost the alert " + labelsJson + ": " + alerts);
    }

    @Test
    void theSilenceMutesTheNodesAlertsWhileItIsDownAndIsExpiredAfter() throws Exception {
        Instant now = now();
        try (AlertmanagerSilences s = silences(am.url, "run-aaaa1111", now, SilenceSpec.DEFAULTS)) {
            SilenceOutcome created = await(s.create("worker-a"));
            assertEquals(SilenceOutcome.Kind.CREATED, created.kind(), created.message());
            assertEquals(2, created.silenceIds().size(), created.message());
            String byNode = created.silenceIds().get(0);
            String byInstance = created.silenceIds().get(1);

            JsonArray listed = new JsonArray(am.get("/api/v2/silences").body());
            for (String id : created.silenceIds()) {
                JsonObject silence = silence(id);
                assertEquals("active", silence.getJsonObject("status").getString("state"));
                assertEquals("crifresh", silence.getString("createdBy"));
                assertTrue(silence.getString("comment").contains("run-aaaa1111"), silence.getString("comment"));
                assertEquals(now.plus(Duration.ofMinutes(15)), Instant.parse(silence.getString("endsAt")));
                assertTrue(listed.stream().anyMatch(o -> ((JsonObject) o).getString("id").equals(id)), listed.encode());
            }

            // Alertmanager itself applies the matchers: the node's alerts by node and by instance, not a neighbour's
            assertEquals(List.of(byNode), silencedBy("{\"alertname\":\"KubeNodeNotReady\",\"node\":\"worker-a\",\"instance\":\"10.0.0.9:8080\"}"));
            assertEquals(List.of(byInstance), silencedBy("{\"alertname\":\"NodeDown\",\"instance\":\"worker-a:9100\"}"));
            assertEquals(List.of(), silencedBy("{\"alertname\":\"NodeDown\",\"instance\":\"worker-ab:9100\"}"));
            assertEquals(List.of(), silencedBy("{\"alertname\":\"KubeNodeNotReady\",\"node\":\"worker-b\"}"));

            SilenceOutcome expired = await(s.expire("worker-a"));
            assertEquals(SilenceOutcome.Kind.EXPIRED, expired.kind(), expired.message());
            assertEquals(java.util.Set.copyOf(created.silenceIds()), java.util.Set.copyOf(expired.silenceIds()));
            for (String id : created.silenceIds()) {
                assertEquals("expired", silence(id).getJsonObject("status").getString("state"));
            }
            assertEquals(List.of(), silencedBy("{\"alertname\":\"KubeNodeNotReady\",\"node\":\"worker-a\",\"instance\":\"10.0.0.9:8080\"}"));
            assertEquals(List.of(), silencedBy("{\"alertname\":\"NodeDown\",\"instance\":\"worker-a:9100\"}"));

            SilenceOutcome again = await(s.expire("worker-a"));
            assertEquals(SilenceOutcome.Kind.NOTHING, again.kind(), again.message());
        }
    }

    @Test
    void aRerunExpiresAPreviousRunsLeftoverButNotSomeoneElsesSilence() throws Exception {
        Instant now = now();
        String leftover;
        try (AlertmanagerSilences crashedRun = silences(am.url, "run-bbbb2222", now, SilenceSpec.DEFAULTS)) {
            leftover = await(crashedRun.create("worker-c")).silenceIds().get(0);  // node="worker-c"
        }
        // the crashed run left both silences; a test of the leftover search: expire one of them by hand first
        // an operator's own silence of the same node: same matchers, another author
        var own = am.post("/api/v2/silences", new JsonObject()
                .put("matchers", new JsonArray().add(new JsonObject().put("name", "node").put("value", "worker-c")
                        .put("isRegex", false).put("isEqual", true)))
                .put("startsAt", now.toString()).put("endsAt", now.plus(Duration.ofHours(1)).toString())
                .put("createdBy", "oncall").put("comment", "maintenance").encode());
        assertEquals(200, own.statusCode(), own.body());
        String operators = new JsonObject(own.body()).getString("silenceID");
        String otherNode;
        try (AlertmanagerSilences rerun = silences(am.url, "run-cccc3333", now(), SilenceSpec.DEFAULTS)) {
            otherNode = await(rerun.create("worker-d")).silenceIds().get(0);
            SilenceOutcome expired = await(rerun.expire("worker-c"));
            assertEquals(SilenceOutcome.Kind.EXPIRED, expired.kind(), expired.message());
            assertEquals(2, expired.silenceIds().size(), expired.message());
            assertTrue(expired.silenceIds().contains(leftover), expired.message());
            await(rerun.expire("worker-d"));
        }
        assertEquals("expired", silence(leftover).getJsonObject("status").getString("state"));
        assertEquals("active", silence(operators).getJsonObject("status").getString("state"));
        assertEquals("expired", silence(otherNode).getJsonObject("status").getString("state"));
    }

    @Test
    void configuredMatchersAreWhatAlertmanagerGets() throws Exception {
        List<SilenceSpec> matchers = List.of(SilenceSpec.parse("kubernetes_node=\"{node}\",severity!=\"critical\""));
        try (AlertmanagerSilences s = silences(am.url, "run-dddd4444", now(), matchers)) {
            String id = await(s.create("cp-1")).silenceIds().get(0);
            assertEquals(List.of(id), silencedBy("{\"alertname\":\"X\",\"kubernetes_node\":\"cp-1\",\"severity\":\"warning\"}"));
            assertEquals(List.of(), silencedBy("{\"alertname\":\"X\",\"kubernetes_node\":\"cp-1\",\"severity\":\"critical\"}"));
            assertEquals(List.of(id), await(s.expire("cp-1")).silenceIds());
        }
    }

    @Test
    void anUnreachableAlertmanagerIsAWarningNamingTheUrl() throws Exception {
        String url = "http://127.0.0.1:" + RealAlertmanager.freePort();
        try (AlertmanagerSilences s = silences(url, "run-eeee5555", now(), SilenceSpec.DEFAULTS)) {
            SilenceOutcome created = await(s.create("worker-a"));
            assertEquals(SilenceOutcome.Kind.WARNING, created.kind());
            assertTrue(created.message().startsWith("cannot create the Alertmanager silence {node=\"{node}\"} for worker-a: " + url + "/api/v2/silences: "),
                    created.message());
            SilenceOutcome expired = await(s.expire("worker-a"));
            assertEquals(SilenceOutcome.Kind.WARNING, expired.kind());
            assertTrue(expired.message().contains(url + "/api/v2/silences"), expired.message());
        }
    }

    @Test
    void a5xxAnswerIsAWarningNamingTheUrlAndStatus() throws Exception {
        HttpServer failing = await(vertx.createHttpServer().requestHandler(req -> req.response().setStatusCode(503)
                .end("{\"message\":\"overloaded\"}")).listen(0, "127.0.0.1"));
        String url = "http://127.0.0.1:" + failing.actualPort() + "/am";
        try (AlertmanagerSilences s = silences(url, "run-ffff6666", now(), SilenceSpec.DEFAULTS)) {
            SilenceOutcome created = await(s.create("worker-a"));
            assertEquals(SilenceOutcome.Kind.WARNING, created.kind());
            assertEquals("cannot create the Alertmanager silence {node=\"{node}\"} for worker-a: " + url + "/api/v2/silences answered 503:"
                    + " {\"message\":\"overloaded\"}", created.message());
            SilenceOutcome expired = await(s.expire("worker-a"));
            assertEquals("cannot expire the Alertmanager silences of worker-a: " + url + "/api/v2/silences answered 503:"
                    + " {\"message\":\"overloaded\"}", expired.message());
        } finally {
            await(failing.close());
        }
    }

    /** The listing works, the expiry itself is refused: the warning names the silence and the DELETE's URL. */
    @Test
    void aRefusedExpiryIsAWarningNamingTheSilenceAndItsUrl() throws Exception {
        String listed = new JsonArray().add(new JsonObject().put("id", "abc-1").put("createdBy", "crifresh")
                .put("status", new JsonObject().put("state", "active"))
                .put("matchers", new JsonArray().add(new JsonObject().put("name", "node").put("value", "worker-a")
                        .put("isRegex", false).put("isEqual", true)))).encode();
        HttpServer half = await(vertx.createHttpServer().requestHandler(req -> {
            if (req.method().name().equals("GET")) {
                req.response().putHeader("Content-Type", "application/json").end(listed);
            } else {
                req.response().setStatusCode(500).end("internal");
            }
        }).listen(0, "127.0.0.1"));
        String url = "http://127.0.0.1:" + half.actualPort();
        try (AlertmanagerSilences s = silences(url, "run-12121212", now(), SilenceSpec.DEFAULTS)) {
            SilenceOutcome expired = await(s.expire("worker-a"));
            assertEquals(SilenceOutcome.Kind.WARNING, expired.kind());
            assertEquals("cannot expire the Alertmanager silence abc-1 of worker-a: " + url + "/api/v2/silence/abc-1 answered 500:"
                    + " internal", expired.message());
        } finally {
            await(half.close());
        }
    }

    @Test
    void alertmanagerRefusingTheSilenceIsAWarningWithItsReason() throws Exception {
        // an endsAt before startsAt cannot happen with a positive lifetime; a matcher Alertmanager refuses can
        List<SilenceSpec> bad = List.of(SilenceSpec.parse("node=\"{node}\""), new SilenceSpec(List.of(
                new SilenceMatcher("node", "{node}", false, true), new SilenceMatcher("bad label", "x", false, true))));
        try (AlertmanagerSilences s = silences(am.url, "run-99990000", now(), bad)) {
            SilenceOutcome created = await(s.create("worker-a"));
            assertEquals(SilenceOutcome.Kind.WARNING, created.kind(), created.message());
            assertTrue(created.message().contains(am.url + "/api/v2/silences answered 400"), created.message());
            assertEquals(1, created.silenceIds().size(), "the first silence was created and is kept for expiry");
            assertEquals(SilenceOutcome.Kind.EXPIRED, await(s.expire("worker-a")).kind());
        }
    }
}
