package dev.crifresh.coordinator.silence;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link Silences} through Alertmanager's API v2 with the Vert.x web client:
 * {@code POST /api/v2/silences} to create (one silence per {@link SilenceSpec}), {@code GET /api/v2/silences} to find this node's silences created by
 * crifresh (this run's and a previous run's), {@code DELETE /api/v2/silence/{id}} to expire each. Every request
 * has {@link #REQUEST_TIMEOUT}; every failure becomes a warning outcome naming the URL.
 */
public final class AlertmanagerSilences implements Silences {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final WebClient client;
    private final SilenceSettings settings;
    private final Clock clock;
    private final String base;

    public AlertmanagerSilences(Vertx vertx, SilenceSettings settings, Clock clock) {
        this.client = WebClient.create(vertx, new WebClientOptions()
                .setConnectTimeout((int) REQUEST_TIMEOUT.toMillis()).setUserAgent("crifresh-coordinator"));
        this.settings = settings;
        this.clock = clock;
        String url = settings.alertmanager().toString();
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** One silence per {@link SilenceSpec}; the ids of those created are kept even when another one fails. */
    @Override
    public Future<SilenceOutcome> create(String node) {
        Instant now = clock.instant();
        return createAll(node, now, 0, new ArrayList<>());
    }

    private Future<SilenceOutcome> createAll(String node, Instant now, int i, List<String> created) {
        if (i == settings.silences().size()) {
            return Future.succeededFuture(new SilenceOutcome(node, SilenceOutcome.Kind.CREATED, created, "silenced " + node
                    + "'s alerts until " + now.plus(settings.lifetime()) + " (Alertmanager silence "
                    + String.join(", ", created) + ")"));
        }
        String url = base + "/api/v2/silences";
        SilenceSpec spec = settings.silences().get(i);
        JsonObject silence = new JsonObject()
                .put("matchers", matchersJson(spec, node))
                .put("startsAt", now.toString())
                .put("endsAt", now.plus(settings.lifetime()).toString())
                .put("createdBy", SilenceSettings.CREATED_BY)
                .put("comment", settings.comment(node));
        String what = "cannot create the Alertmanager silence " + spec + " for " + node + ": ";
        return client.postAbs(url).timeout(REQUEST_TIMEOUT.toMillis()).sendJsonObject(silence)
                .map(response -> {
                    if (response.statusCode() != 200) {
                        return what + answered(url, response);
                    }
                    String id = idOf(response);
                    if (id == null) {
                        return what + url + " answered 200 without a silenceID";
                    }
                    created.add(id);
                    return null;
                })
                .otherwise(e -> what + url + ": " + describe(e))
                .compose(warning -> warning == null ? createAll(node, now, i + 1, created)
                        : Future.succeededFuture(new SilenceOutcome(node, SilenceOutcome.Kind.WARNING, created, warning)));
    }

    @Override
    public Future<SilenceOutcome> expire(String node) {
        String listUrl = base + "/api/v2/silences";
        return client.getAbs(listUrl).timeout(REQUEST_TIMEOUT.toMillis()).send()
                .compose(response -> {
                    if (response.statusCode() != 200) {
                        return Future.succeededFuture(SilenceOutcome.warning(node, "cannot expire the Alertmanager silences of "
                                + node + ": " + answered(listUrl, response)));
                    }
                    List<String> ids;
                    try {
                        ids = ours(response.bodyAsJsonArray(), node);
                    } catch (RuntimeException e) {
                        return Future.succeededFuture(SilenceOutcome.warning(node, "cannot expire the Alertmanager silences of "
                                + node + ": unreadable answer from " + listUrl + ": " + describe(e)));
                    }
                    return expireAll(node, ids, 0, new ArrayList<>());
                })
                .otherwise(e -> SilenceOutcome.warning(node, "cannot expire the Alertmanager silences of " + node + ": "
                        + listUrl + ": " + describe(e)));
    }

    private Future<SilenceOutcome> expireAll(String node, List<String> ids, int i, List<String> expired) {
        if (i == ids.size()) {
            return Future.succeededFuture(expired.isEmpty()
                    ? SilenceOutcome.nothing(node, "no active Alertmanager silence of crifresh for " + node)
                    : new SilenceOutcome(node, SilenceOutcome.Kind.EXPIRED, expired, "expired the Alertmanager silence(s) "
                            + String.join(", ", expired) + " of " + node));
        }
        String url = base + "/api/v2/silence/" + ids.get(i);
        String what = "cannot expire the Alertmanager silence " + ids.get(i) + " of " + node + ": ";
        return client.deleteAbs(url).timeout(REQUEST_TIMEOUT.toMillis()).send()
                .map(response -> response.statusCode() == 200 ? null : what + answered(url, response))
                .otherwise(e -> what + url + ": " + describe(e))
                .compose(warning -> {
                    if (warning != null) {
                        return Future.succeededFuture(new SilenceOutcome(node, SilenceOutcome.Kind.WARNING, expired, warning));
                    }
                    expired.add(ids.get(i));
                    return expireAll(node, ids, i + 1, expired);
                });
    }

    /** Active or pending silences created by crifresh with exactly the matchers of one of this node's silences. */
    List<String> ours(JsonArray silences, String node) {
        List<JsonArray> wanted = settings.silences().stream().map(spec -> matchersJson(spec, node)).toList();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < silences.size(); i++) {
            JsonObject s = silences.getJsonObject(i);
            JsonObject status = s.getJsonObject("status");
            String state = status == null ? null : status.getString("state");
            if (SilenceSettings.CREATED_BY.equals(s.getString("createdBy"))
                    && ("active".equals(state) || "pending".equals(state))
                    && wanted.stream().anyMatch(w -> sameMatchers(w, s.getJsonArray("matchers")))) {
                ids.add(Objects.requireNonNull(s.getString("id"), "a silence without id"));
            }
        }
        return ids;
    }

    private static boolean sameMatchers(JsonArray wanted, JsonArray actual) {
        if (actual == null || actual.size() != wanted.size()) {
            return false;
        }
        List<JsonObject> remaining = new ArrayList<>();
        for (int i = 0; i < actual.size(); i++) {
            JsonObject m = actual.getJsonObject(i);
            remaining.add(new JsonObject().put("name", m.getString("name")).put("value", m.getString("value"))
                    .put("isRegex", m.getBoolean("isRegex", false)).put("isEqual", m.getBoolean("isEqual", true)));
        }
        for (int i = 0; i < wanted.size(); i++) {
            if (!remaining.remove(wanted.getJsonObject(i))) {
                return false;
            }
        }
        return true;
    }

    private static JsonArray matchersJson(SilenceSpec spec, String node) {
        JsonArray out = new JsonArray();
        for (SilenceMatcher m : spec.matchers()) {
            out.add(new JsonObject().put("name", m.name()).put("value", m.render(node))
                    .put("isRegex", m.isRegex()).put("isEqual", m.isEqual()));
        }
        return out;
    }

    private static String idOf(HttpResponse<Buffer> response) {
        try {
            JsonObject body = response.bodyAsJsonObject();
            return body == null ? null : body.getString("silenceID");
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String answered(String url, HttpResponse<Buffer> response) {
        String body = response.bodyAsString();
        body = body == null ? "" : body.strip().replaceAll("\\s+", " ");
        return url + " answered " + response.statusCode() + (body.isEmpty() ? ""
                : ": " + (body.length() > 200 ? body.substring(0, 200) + "…" : body));
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    @Override
    public void close() {
        client.close();
    }
}
