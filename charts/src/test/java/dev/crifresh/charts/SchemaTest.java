package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class SchemaTest {

    @Test
    void aTypoedKeyIsRejectedAtTheTopAndDeepDown() {
        assertRejected(Map.of("toleration", "x"), "(root): Additional property toleration is not allowed");
        assertRejected(Map.of("agent.heartbeet", "5m"), "agent: Additional property heartbeet is not allowed");
        assertRejected(Map.of("securityContext.readOnlyRootFileSystem", true),
                "securityContext: Additional property readOnlyRootFileSystem is not allowed");
        assertRejected(Map.of("metrics.serviceMonitor.label.release", "x"),
                "metrics.serviceMonitor: Additional property label is not allowed");
        assertRejected(Map.of("coordinator.job.enable", true), "coordinator.job: Additional property enable is not allowed");
        assertRejected(Map.of("image.agent.digset", "sha256:x"), "image.agent: Additional property digset is not allowed");
    }

    @Test
    void aWrongTypeOrValueIsRejected() {
        assertRejected(Map.of("agent.metricsPort", "http"), "agent.metricsPort: Invalid type. Expected: integer, given: string");
        assertRejected(Map.of("agent.metricsPort", 70000), "agent.metricsPort: Must be less than or equal to 65535");
        assertRejected(Map.of("admissionPolicy.enabled", "sometimes"), "admissionPolicy.enabled: Invalid type. Expected: boolean");
        assertRejected(Map.of("agent.mode", "k3s"), "agent.mode: agent.mode must be one of the following");
        assertRejected(Map.of("agent.heartbeat", "five minutes"), "agent.heartbeat: Does not match pattern");
        assertRejected(Map.of("agent.hostRoot", "host"), "agent.hostRoot: Does not match pattern");
        assertRejected(Map.of("coordinator.credentialSecret", "just-a-name"), "coordinator.credentialSecret: Does not match pattern");
        assertRejected(Map.of("coordinator.maxUnavailable", "half"), "coordinator.maxUnavailable: Does not match pattern");
        assertRejected(Map.of("grafana.dashboard.labels.grafana_dashboard", 1),
                "grafana.dashboard.labels.grafana_dashboard: Invalid type. Expected: string, given: integer");
        assertRejected(Map.of("tolerations[0].operator", "Maybe"), "tolerations.0.operator: tolerations.0.operator must be one of");
    }

    @Test
    void everyObjectInTheSchemaIsClosed() throws IOException {
        JsonNode schema = JsonMapper.builder().build().readTree(Files.readString(Chart.SOURCE.resolve("values.schema.json")));
        List<String> open = new ArrayList<>();
        checkClosed(schema, "$", open);
        assertTrue(open.isEmpty(), "objects without additionalProperties: false or a typed map: " + open);
    }

    /**
     * An object schema with declared properties must forbid others; a map (no properties) must type
     * its values. Kubernetes pass-through objects (affinity terms, env valueFrom, relabelings) are the
     * only schemas typed just {@code object}.
     */
    private static void checkClosed(JsonNode node, String path, List<String> open) {
        if (node.isObject()) {
            if (node.has("properties")) {
                JsonNode additional = node.path("additionalProperties");
                if (!(additional.isBoolean() && !additional.asBoolean())) {
                    open.add(path);
                }
            }
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                checkClosed(field.getValue(), path + "." + field.getKey(), open);
            }
        } else if (node.isArray()) {
            int i = 0;
            for (JsonNode element : node.values()) {
                checkClosed(element, path + "[" + i++ + "]", open);
            }
        }
    }

    private static void assertRejected(Map<String, Object> sets, String mentioned) {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chart.render(sets),
                "the schema must reject " + sets);
        assertTrue(e.getMessage().contains("values don't meet the specifications of the schema"), e.getMessage());
        assertTrue(e.getMessage().contains(mentioned), "expected \"" + mentioned + "\" in: " + e.getMessage());
    }
}
