package dev.crifresh.coordinator.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * Builds a core/v1 Event about a Node, the kind {@code kubectl describe node} lists (it searches for Events
 * whose {@code involvedObject} is the Node: kind, name and UID). The API server accepts an Event about a
 * cluster-scoped object only in namespace {@code default} (as the kubelet's node Events are), so the
 * coordinator's Role to create Events lives there. A legacy-style Event (first/last timestamp, no
 * {@code eventTime}), named as client-go names Events ({@code <object>.<hex nanoseconds>}) plus a sequence
 * number, so two in one nanosecond differ.
 */
public final class NodeEvent {
    public static final String COMPONENT = "crifresh-coordinator";
    /** The only namespace the API server accepts Events about Nodes in (besides none). */
    public static final String NAMESPACE = "default";
    /** Longest message kept, as events.k8s.io/v1 limits a note to 1 KiB. */
    static final int MAX_MESSAGE = 1024;

    private NodeEvent() {
    }

    public static Event of(String nodeName, String nodeUid, EventReason reason, String message,
                           String runId, Instant at, long sequence) {
        String time = DateTimeFormatter.ISO_INSTANT.format(at.truncatedTo(ChronoUnit.SECONDS));
        long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
        return new EventBuilder()
                .withNewMetadata()
                    .withName(nodeName + "." + Long.toHexString(nanos) + "-" + sequence)
                    .withNamespace(NAMESPACE)
                    .addToLabels("app.kubernetes.io/managed-by", "crifresh")
                    .addToAnnotations("crifresh.dev/run", runId)
                .endMetadata()
                .withNewInvolvedObject().withApiVersion("v1").withKind("Node").withName(nodeName).withUid(nodeUid)
                .endInvolvedObject()
                .withReason(reason.reason())
                .withType(reason.type())
                .withMessage(truncate(runId + ": " + message))
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent("crifresh.dev/coordinator")
                .withReportingInstance(runId)
                .withFirstTimestamp(time)
                .withLastTimestamp(time)
                .withCount(1)
                .build();
    }

    private static String truncate(String s) {
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE - 1) + "…";
    }
}
