package dev.crifresh.coordinator.gate.block;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * kured's blockers: while an alert matching {@code --block-on-alert} fires, or a pod matching
 * {@code --block-on-pod-selector} runs on the node, the node is not taken down. Prometheus that cannot be
 * asked blocks too (fail toward not disrupting). {@link #check} looks once; the waiting is the caller's.
 */
public final class Blockers {
    private final AlertSource alerts;
    private final Pattern alertPattern;
    private final BlockerPods pods;

    /** @param alerts null, or with {@code alertPattern}; @param pods null when no pod selector is set */
    public Blockers(AlertSource alerts, Pattern alertPattern, BlockerPods pods) {
        this.alerts = alerts;
        this.alertPattern = alertPattern;
        this.pods = pods;
    }

    /** Releases the Prometheus client. */
    public void close() {
        if (alerts instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // closing a web client does not fail in a way that matters here
            }
        }
    }

    public boolean enabled() {
        return alerts != null || pods != null;
    }

    /** What blocks the node now, one entry per blocker ({@code alert NodeMaintenance}, {@code pod jobs/x}); empty = free. */
    public Future<List<String>> check(String node) {
        Future<List<String>> byAlert = alerts == null ? Future.succeededFuture(List.of())
                : alerts.firing().map(names -> names.stream().filter(n -> alertPattern.matcher(n).matches()).distinct()
                        .map(n -> "alert " + n).toList())
                        .recover(e -> Future.succeededFuture(List.of("alert check (Prometheus unreachable or unreadable: "
                                + e.getMessage() + ")")));
        Future<List<String>> byPod = pods == null ? Future.succeededFuture(List.of())
                : pods.on(node).map(list -> list.stream().map(p -> "pod " + p).toList())
                        .recover(e -> Future.succeededFuture(List.of("pod check (cannot list pods: " + e.getMessage() + ")")));
        return Future.all(byAlert, byPod).map(v -> {
            List<String> all = new ArrayList<>(byAlert.result());
            all.addAll(byPod.result());
            return all;
        });
    }
}
