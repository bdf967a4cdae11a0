package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.silence.AlertmanagerSilences;
import dev.crifresh.coordinator.silence.SilenceSettings;
import dev.crifresh.coordinator.silence.SilenceSpec;
import dev.crifresh.coordinator.silence.Silences;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --silence-alertmanager URL} and {@code --silence-matcher MATCHERS} (repeatable, one silence each): silence a node's alerts
 * in Alertmanager while it is rebooted. A {@code @Mixin} for {@code rollout}; every mistake is a
 * {@link UsageException} (exit 2) naming the flag and the bad value.
 */
public final class SilenceOptions {

    @Option(names = "--silence-alertmanager", paramLabel = "URL",
            description = "Alertmanager's base URL: before a node is taken down, silence its alerts (API v2) until it is back and fresh; a silence that cannot be created or expired is a warning.")
    String alertmanager;

    @Option(names = "--silence-matcher", paramLabel = "MATCHERS",
            description = "The matchers of one silence per node, comma-separated, Alertmanager syntax, {node} = the node's name; repeat for several silences (default: two, node=\"{node}\" and instance=~\"{node}(:.*)?\").")
    List<String> matchers = new ArrayList<>();

    /** The settings, or empty when no Alertmanager is configured. @throws UsageException naming the bad flag */
    Optional<SilenceSettings> settings(String runId, Duration rebootTimeout, Duration attestTimeout) {
        if (alertmanager == null || alertmanager.isBlank()) {
            if (!matchers.isEmpty()) {
                throw new UsageException("--silence-matcher needs --silence-alertmanager URL");
            }
            return Optional.empty();
        }
        URI url = url(alertmanager);
        List<SilenceSpec> parsed = new ArrayList<>();
        for (String text : matchers) {
            try {
                parsed.add(SilenceSpec.parse(text));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--silence-matcher " + e.getMessage());
            }
        }
        if (parsed.isEmpty()) {
            parsed.addAll(SilenceSpec.DEFAULTS);
        }
        return Optional.of(new SilenceSettings(url, parsed, SilenceSettings.lifetime(rebootTimeout, attestTimeout), runId));
    }

    /** The silences to use in a rollout: Alertmanager's, or {@link Silences#none()}. */
    Silences silences(Vertx vertx, Clock clock, String runId, Duration rebootTimeout, Duration attestTimeout) {
        return settings(runId, rebootTimeout, attestTimeout)
                .<Silences>map(s -> new AlertmanagerSilences(vertx, s, clock))
                .orElseGet(Silences::none);
    }

    private static URI url(String text) {
        URI uri;
        try {
            uri = new URI(text.strip());
        } catch (URISyntaxException e) {
            throw new UsageException("--silence-alertmanager '" + text + "' is not a URL: " + e.getReason());
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new UsageException("--silence-alertmanager '" + text + "' is not an http(s) URL with a host"
                    + " (e.g. http://alertmanager.monitoring:9093)");
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new UsageException("--silence-alertmanager '" + text + "': give the base URL only, without ?query or #fragment");
        }
        return uri;
    }
}
