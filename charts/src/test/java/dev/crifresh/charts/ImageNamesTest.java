package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * One image name everywhere: what release.yml pushes (images and chart) is what the chart's defaults pull, and what
 * README.md and docs/ name; {@code image.registry} moves both images to a mirror.
 */
class ImageNamesTest {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Pattern IMAGE_IN_DOCS = Pattern.compile("ghcr\\.io/[^\\s/`'\"]+/crifresh-(agent|coordinator)");
    private static final Pattern CHART_IN_DOCS = Pattern.compile("oci://[^\\s`'\"]*/charts/crifresh");

    private static JsonNode release() throws Exception {
        return YAML.readTree(Docs.text(".github/workflows/release.yml"));
    }

    /** release.yml's ${{ env.X }} expressions, with its top-level env. */
    private static String expand(String expression) throws Exception {
        JsonNode env = release().path("env");
        Matcher m = Pattern.compile("\\$\\{\\{ env\\.(\\w+) }}|\\$(REGISTRY|IMAGE_NAMESPACE)\\b").matcher(expression);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            assertTrue(env.has(name), "release.yml has no env " + name);
            m.appendReplacement(out, Matcher.quoteReplacement(env.path(name).asString()));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The image release.yml pushes for a component, e.g. ghcr.io/crifresh/crifresh-agent. */
    static String releasedImage(String component) throws Exception {
        List<String> found = new ArrayList<>();
        for (JsonNode step : release().path("jobs").path("images").path("steps")) {
            String images = step.path("with").path("images").asString("");
            if (!images.isEmpty()) {
                found.add(expand(images).replace("${{ matrix.component }}", component));
            }
            String subject = step.path("with").path("subject-name").asString("");
            if (!subject.isEmpty()) {
                found.add(expand(subject).replace("${{ matrix.component }}", component));
            }
        }
        assertEquals(2, found.size(), "release.yml's images job: the metadata images and the attestation subject " + found);
        assertEquals(found.get(0), found.get(1), "pushed and attested under one name");
        return found.get(0);
    }

    /** The chart release.yml pushes, e.g. ghcr.io/crifresh/charts/crifresh (no oci://). */
    static String releasedChartRepository() throws Exception {
        String chartJob = release().path("jobs").path("chart").toString();
        Matcher push = Pattern.compile("helm push \\S+ \\\\\"oci://([^\\\\\"]+)\\\\\"").matcher(chartJob);
        assertTrue(push.find(), "release.yml's chart job has no helm push to oci://: " + chartJob);
        String chartName = YAML.readTree(Files.readString(Chart.SOURCE.resolve("Chart.yaml"))).path("name").asString();
        return expand(push.group(1)) + "/" + chartName;
    }

    private static String appVersion() throws Exception {
        return YAML.readTree(Files.readString(Chart.SOURCE.resolve("Chart.yaml"))).path("appVersion").asString();
    }

    private static String image(Rendered rendered, String kind, String name) {
        return rendered.one(kind, name).path("spec").path("template").path("spec").path("containers").get(0).path("image").asString();
    }

    @Test
    void theChartsDefaultImagesAreTheOnesTheReleasePushes() throws Exception {
        assertEquals("ghcr.io/crifresh/crifresh-agent", releasedImage("agent"));
        assertEquals("ghcr.io/crifresh/crifresh-coordinator", releasedImage("coordinator"));
        Rendered rendered = Chart.render(Map.of("coordinator.job.enabled", true, "coordinator.talosconfig.secretName", "tc",
                "coordinator.credentialSecret", "ci/ghcr-pull"));
        assertEquals(releasedImage("agent") + ":" + appVersion(), image(rendered, "DaemonSet", "crifresh-agent"));
        assertEquals(releasedImage("coordinator") + ":" + appVersion(), image(rendered, "Job", "crifresh-keys-init"));
        List<JsonNode> jobs = rendered.all("Job");
        assertEquals(2, jobs.size(), rendered.summary().toString());
        for (JsonNode job : jobs) {
            assertEquals(releasedImage("coordinator") + ":" + appVersion(),
                    job.path("spec").path("template").path("spec").path("containers").get(0).path("image").asString());
        }
    }

    @Test
    void imageRegistryMovesBothImagesToAMirror() throws Exception {
        Rendered mirrored = Chart.render(Map.of("image.registry", "registry.example.com:5000/ghcr"));
        assertEquals("registry.example.com:5000/ghcr/crifresh/crifresh-agent:" + appVersion(), image(mirrored, "DaemonSet", "crifresh-agent"));
        assertEquals("registry.example.com:5000/ghcr/crifresh/crifresh-coordinator:" + appVersion(), image(mirrored, "Job", "crifresh-keys-init"));

        Rendered own = Chart.render(Map.of("image.registry", "", "image.agent.repository", "registry.example.com/team/agent",
                "image.agent.digest", "sha256:" + "b".repeat(64)));
        assertEquals("registry.example.com/team/agent:" + appVersion() + "@sha256:" + "b".repeat(64), image(own, "DaemonSet", "crifresh-agent"));
    }

    @Test
    void releaseYmlRefusesATagWhoseChartDefaultsAreNotItsImages() throws Exception {
        String versionJob = release().path("jobs").path("version").toString();
        assertTrue(versionJob.contains("charts/crifresh/values.yaml") && versionJob.contains("$REGISTRY/$IMAGE_NAMESPACE/crifresh-$component"),
                "the version job compares values.yaml's images with the pushed ones: " + versionJob);
    }

    /** Every ghcr.io image and OCI chart named in README.md and docs/ is the released one; install.md lists them. */
    @Test
    void theDocsNameTheReleasedImagesAndChart() throws Exception {
        List<Path> docs = new ArrayList<>(List.of(Docs.ROOT.resolve("README.md")));
        try (Stream<Path> files = Files.list(Docs.ROOT.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        int images = 0;
        int charts = 0;
        for (Path doc : docs) {
            String text = Files.readString(doc);
            assertFalse(text.contains("No prebuilt images are published"), doc + " says no images are published");
            Matcher image = IMAGE_IN_DOCS.matcher(text);
            while (image.find()) {
                images++;
                assertEquals(releasedImage(image.group(1)), image.group(), doc.getFileName() + " names another image");
            }
            Matcher chart = CHART_IN_DOCS.matcher(text);
            while (chart.find()) {
                charts++;
                assertEquals("oci://" + releasedChartRepository(), chart.group(), doc.getFileName() + " names another chart");
            }
        }
        assertTrue(images >= 2 && charts >= 2, "images " + images + ", charts " + charts);
        String table = Docs.section("docs/install.md", "## Images");
        for (String expected : List.of("`" + releasedImage("agent") + ":<version>`", "`" + releasedImage("coordinator") + ":<version>`",
                "`oci://" + releasedChartRepository() + "`")) {
            assertTrue(table.contains(expected), "docs/install.md's Images table lacks " + expected);
        }
    }
}
