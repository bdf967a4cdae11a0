package dev.crifresh.agent.kube;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** A Lease's JSON as the API server reads and writes it ({@code MicroTime}: exactly six fraction digits). */
public final class LeaseJson {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Go's {@code metav1.RFC3339Micro} ("2006-01-02T15:04:05.000000Z07:00"), which the API server parses strictly. */
    static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX")
            .withZone(ZoneOffset.UTC);

    private LeaseJson() {
    }

    public static LeaseRecord read(JsonNode json) {
        JsonNode spec = json.path("spec");
        return new LeaseRecord(text(spec, "holderIdentity"), spec.path("leaseDurationSeconds").asInt(0),
                time(spec, "acquireTime"), time(spec, "renewTime"), spec.path("leaseTransitions").asInt(0),
                text(json.path("metadata"), "resourceVersion"));
    }

    /** A whole Lease object for a create. */
    public static ObjectNode lease(String namespace, String name, LeaseRecord lease) {
        ObjectNode o = JSON.createObjectNode();
        o.put("apiVersion", "coordination.k8s.io/v1");
        o.put("kind", "Lease");
        ObjectNode metadata = o.putObject("metadata");
        metadata.put("name", name);
        metadata.put("namespace", namespace);
        o.set("spec", spec(lease));
        return o;
    }

    /** A JSON Patch that replaces the spec only while the Lease is still at {@code current}'s resourceVersion. */
    public static ArrayNode guardedUpdate(LeaseRecord current, LeaseRecord next) {
        if (current.resourceVersion() == null || current.resourceVersion().isEmpty()) {
            throw new IllegalArgumentException("a Lease read from the API always has a resourceVersion");
        }
        ArrayNode ops = JSON.createArrayNode();
        ops.addObject().put("op", "test").put("path", "/metadata/resourceVersion").put("value", current.resourceVersion());
        ops.addObject().put("op", "replace").put("path", "/spec").set("value", spec(next));
        return ops;
    }

    static ObjectNode spec(LeaseRecord lease) {
        ObjectNode spec = JSON.createObjectNode();
        if (lease.holder() != null) {
            spec.put("holderIdentity", lease.holder());
        }
        spec.put("leaseDurationSeconds", lease.durationSeconds());
        if (lease.acquireTime() != null) {
            spec.put("acquireTime", MICRO_TIME.format(lease.acquireTime()));
        }
        if (lease.renewTime() != null) {
            spec.put("renewTime", MICRO_TIME.format(lease.renewTime()));
        }
        spec.put("leaseTransitions", lease.transitions());
        return spec;
    }

    private static String text(JsonNode parent, String field) {
        JsonNode value = parent.get(field);
        return value == null || value.isNull() ? null : value.asString();
    }

    /** A time that does not parse reads as absent: the Lease then counts as expired, and is taken over. */
    private static Instant time(JsonNode parent, String field) {
        String value = text(parent, field);
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
