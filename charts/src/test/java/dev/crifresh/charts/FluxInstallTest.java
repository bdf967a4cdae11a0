package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * docs/install.md's "Install with Flux" manifests, as a reader copies them: the Namespace carries the Pod Security
 * level the rendered agent needs, the OCIRepository names the chart release.yml pushes, at the chart's version, and
 * the HelmRelease's values pass values.schema.json and render (helm-java, the hooks included) into what the doc
 * says helm-controller runs: keys init as a pre-install,pre-upgrade hook it waits for within the release's timeout.
 *
 * <p>Threat model: neither side — installation. A namespace below {@code privileged} leaves every node unattested,
 * so every node would be rebooted.
 */
class FluxInstallTest {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final String SECTION = "## Install with Flux";
    private static List<JsonNode> manifests;
    private static JsonNode namespace;
    private static JsonNode ociRepository;
    private static JsonNode helmRelease;

    @TempDir
    static Path work;

    @BeforeAll
    static void read() {
        manifests = Docs.yamlDocuments(Docs.section("docs/install.md", SECTION));
        namespace = one("Namespace");
        ociRepository = one("OCIRepository");
        helmRelease = one("HelmRelease");
    }

    private static JsonNode one(String kind) {
        List<JsonNode> found = manifests.stream().filter(m -> kind.equals(m.path("kind").asString())).toList();
        assertEquals(1, found.size(), "one " + kind + " in docs/install.md's Flux section: " + manifests);
        return found.get(0);
    }

    @Test
    void theSectionHoldsExactlyTheThreeManifestsWithFluxsCurrentApis() {
        assertEquals(3, manifests.size(), manifests.toString());
        assertEquals("v1", namespace.path("apiVersion").asString());
        assertEquals("source.toolkit.fluxcd.io/v1", ociRepository.path("apiVersion").asString());
        assertEquals("helm.toolkit.fluxcd.io/v2", helmRelease.path("apiVersion").asString());
        String ns = namespace.path("metadata").path("name").asString();
        assertEquals(ns, ociRepository.path("metadata").path("namespace").asString());
        assertEquals(ns, helmRelease.path("metadata").path("namespace").asString());
    }

    /** The agent's pod uses what `baseline` forbids (hostPID, hostPath), and nothing beyond what `privileged` allows. */
    @Test
    void theNamespaceEnforcesTheLevelTheRenderedAgentNeeds() throws Exception {
        JsonNode labels = namespace.path("metadata").path("labels");
        assertEquals("privileged", labels.path("pod-security.kubernetes.io/enforce").asString(), labels.toString());
        JsonNode pod = render().one("DaemonSet").path("spec").path("template").path("spec");
        assertTrue(pod.path("hostPID").asBoolean(), "hostPID is why baseline does not do");
        assertTrue(pod.path("volumes").valueStream().anyMatch(v -> v.has("hostPath")), "hostPath is why baseline does not do");
        JsonNode container = pod.path("containers").get(0);
        assertFalse(container.path("securityContext").path("privileged").asBoolean(), "no privileged container");
        assertTrue(container.path("securityContext").path("capabilities").path("add").isMissingNode());
        assertFalse(pod.path("hostNetwork").asBoolean());
    }

    @Test
    void theOciRepositoryIsTheChartReleaseYmlPushesAtTheChartsVersion() throws Exception {
        JsonNode spec = ociRepository.path("spec");
        assertEquals("oci://" + ImageNamesTest.releasedChartRepository(), spec.path("url").asString());
        assertEquals(chartVersion(), spec.path("ref").path("tag").asString());
        assertEquals("application/vnd.cncf.helm.chart.content.v1.tar+gzip", spec.path("layerSelector").path("mediaType").asString());
        assertEquals("copy", spec.path("layerSelector").path("operation").asString(), "helm-controller wants the chart's .tgz");
        JsonNode ref = helmRelease.path("spec").path("chartRef");
        assertEquals("OCIRepository", ref.path("kind").asString());
        assertEquals(ociRepository.path("metadata").path("name").asString(), ref.path("name").asString());
    }

    /** helm-java validates values against values.schema.json as helm-controller's Helm does, then renders. */
    @Test
    void theHelmReleasesValuesPassTheSchemaAndRenderTheReleasedImages() throws Exception {
        Rendered rendered = render();
        String registry = helmRelease.path("spec").path("values").path("image").path("registry").asString();
        String version = chartVersion();
        JsonNode agent = rendered.one("DaemonSet").path("spec").path("template").path("spec").path("containers").get(0);
        assertEquals(registry + "/crifresh/crifresh-agent:" + version, agent.path("image").asString());
        assertFalse(rendered.all("ServiceMonitor").isEmpty() || rendered.all("PrometheusRule").isEmpty(), rendered.summary().toString());

        // the same path rejects what the schema does: a typo in the doc's values would fail here
        ObjectNode typo = (ObjectNode) helmRelease.path("spec").path("values").deepCopy();
        ((ObjectNode) typo.path("agent")).put("mdoe", "talos");
        Path file = work.resolve("typo.yaml");
        Files.writeString(file, YAML.writeValueAsString(typo));
        Exception e = assertThrows(Exception.class, () -> template(Chart.SOURCE, file));
        assertTrue(e.getMessage().contains("mdoe"), e.getMessage());
    }

    /** What the doc says about hooks: keys init runs before install and upgrade, and fits in the release's timeout. */
    @Test
    void keysInitIsAPreInstallPreUpgradeHookThatFitsTheReleasesTimeout() throws Exception {
        JsonNode spec = helmRelease.path("spec");
        assertFalse(spec.path("install").path("disableHooks").asBoolean(), "keys init must run");
        assertFalse(spec.path("upgrade").path("disableHooks").asBoolean(), "keys init must run");
        Rendered rendered = render();
        JsonNode job = rendered.one("Job", "crifresh-keys-init");
        assertEquals("pre-install,pre-upgrade", job.path("metadata").path("annotations").path(Chart.HOOK_KEY).asString());
        assertTrue(job.path("spec").path("template").path("spec").path("containers").get(0).path("args").toString().contains("init"),
                job.toString());
        Duration timeout = Duration.parse("PT" + spec.path("timeout").asString().toUpperCase());
        long deadline = job.path("spec").path("activeDeadlineSeconds").asLong();
        assertTrue(timeout.toSeconds() > deadline, "helm-controller waits " + timeout + " for a hook that may run " + deadline + " s");
        assertTrue(rendered.all("Job").stream().noneMatch(j -> j.path("metadata").path("name").asString().endsWith("-rollout")
                || j.path("metadata").path("annotations").path(Chart.HOOK_KEY).asString().contains("post-")),
                "no rollout hook under Flux: " + rendered.summary());
    }

    private static Rendered render() throws Exception {
        Path file = work.resolve("values.yaml");
        Files.writeString(file, YAML.writeValueAsString(helmRelease.path("spec").path("values")));
        return new Rendered(template(Chart.hooksAsManifests(), file));
    }

    private static String template(Path chart, Path values) {
        String release = helmRelease.path("spec").path("releaseName").asString(helmRelease.path("metadata").path("name").asString());
        return new Helm(chart).template().withName(release)
                .withNamespace(helmRelease.path("metadata").path("namespace").asString()).withValuesFile(values).call();
    }

    static String chartVersion() throws Exception {
        return YAML.readTree(Files.readString(Chart.SOURCE.resolve("Chart.yaml"))).path("version").asString();
    }
}
