package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** docs/coordinator.md's "Kubernetes Job" is the Job the chart renders (helm-java), with the values the doc names. */
class CoordinatorJobDocTest {
    @Test
    void theDocumentedJobIsTheRenderedOne() {
        JsonNode doc = Docs.yamlDocuments(Docs.section("docs/coordinator.md", "### Kubernetes Job")).stream()
                .filter(d -> d.path("kind").asString().equals("Job")).findFirst().orElseThrow();
        Map<String, Object> sets = CoordinatorJobTest.hookJob();
        sets.put("coordinator.credentialSecret", "ci/ghcr-pull");
        JsonNode rendered = Chart.render(sets).one("Job", doc.path("metadata").path("name").asString());

        assertEquals(doc.path("metadata").path("namespace").asString(), rendered.path("metadata").path("namespace").asString());
        assertEquals(doc.path("spec").path("backoffLimit").asInt(-1), rendered.path("spec").path("backoffLimit").asInt(-2));
        JsonNode docPod = doc.path("spec").path("template").path("spec");
        JsonNode pod = rendered.path("spec").path("template").path("spec");
        assertEquals(docPod.path("serviceAccountName").asString(), pod.path("serviceAccountName").asString());
        assertEquals(docPod.path("restartPolicy").asString(), pod.path("restartPolicy").asString());
        JsonNode docContainer = docPod.path("containers").get(0);
        JsonNode container = pod.path("containers").get(0);
        assertEquals(docContainer.path("name").asString(), container.path("name").asString());
        assertEquals(docContainer.path("image").asString(), container.path("image").asString());
        assertEquals(strings(docContainer.path("args")), strings(container.path("args")));
        assertEquals(mounts(docContainer), mounts(container));
        assertEquals(volumes(docPod), volumes(pod));
    }

    private static List<String> mounts(JsonNode container) {
        return container.path("volumeMounts").values().stream()
                .map(m -> m.path("name").asString() + ":" + m.path("mountPath").asString() + ":" + m.path("readOnly").asBoolean(false))
                .toList();
    }

    private static List<String> volumes(JsonNode pod) {
        return pod.path("volumes").values().stream()
                .map(v -> v.path("name").asString() + ":" + v.path("secret").path("secretName").asString("emptyDir"))
                .toList();
    }
}
