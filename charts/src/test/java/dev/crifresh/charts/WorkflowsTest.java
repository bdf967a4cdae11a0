package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The GitHub workflows cannot run here; what can be checked without GitHub is: they parse, every action is
 * pinned to a commit (with its version in a comment), the default token is read-only and only the jobs that
 * publish get more, CI runs {@code .ci/run}, the release builds both images with provenance, attaches the assets
 * {@code .ci/release-assets} assembles and pushes that chart archive as an OCI artifact, and the README's install line names exactly the packages
 * {@code .ci/run} installs.
 */
class WorkflowsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Pattern USES = Pattern.compile("^\\s*(?:-\\s+)?uses:\\s*(\\S+)(.*)$");

    private static String text(String path) throws Exception {
        return Files.readString(ROOT.resolve(path), StandardCharsets.UTF_8);
    }

    private static JsonNode workflow(String name) throws Exception {
        return YAML.readTree(text(".github/workflows/" + name));
    }

    /** "on" is a string key in YAML 1.2 and the boolean true in YAML 1.1 parsers. */
    private static JsonNode triggers(JsonNode workflow) {
        return workflow.has("on") ? workflow.get("on") : workflow.path("true");
    }

    private static List<JsonNode> steps(JsonNode job) {
        List<JsonNode> steps = new ArrayList<>();
        job.path("steps").forEach(steps::add);
        return steps;
    }

    @Test
    void everyActionIsPinnedToACommitWithItsVersionInAComment() throws Exception {
        for (String name : List.of("ci.yml", "release.yml")) {
            int actions = 0;
            for (String line : text(".github/workflows/" + name).split("\n")) {
                Matcher m = USES.matcher(line);
                if (m.matches()) {
                    actions++;
                    assertTrue(m.group(1).matches("[\\w.-]+/[\\w./-]+@[0-9a-f]{40}"), name + ": not pinned: " + line);
                    assertTrue(m.group(2).matches("\\s+# v\\d+(\\.\\d+)*"), name + ": no version comment: " + line);
                }
            }
            assertTrue(actions > 0, name);
        }
    }

    @Test
    void theDefaultTokenIsReadOnlyAndJobsAskForWhatTheyNeed() throws Exception {
        for (String name : List.of("ci.yml", "release.yml")) {
            JsonNode w = workflow(name);
            assertEquals("read", w.path("permissions").path("contents").asString(), name);
            assertEquals(1, w.path("permissions").size(), name + ": only contents: read at the top");
            Set<String> jobs = new TreeSet<>();
            w.path("jobs").properties().forEach(e -> jobs.add(e.getKey()));
            for (Map.Entry<String, JsonNode> job : w.path("jobs").properties()) {
                JsonNode needs = job.getValue().path("needs");
                List<String> needed = new ArrayList<>();
                if (needs.isString()) {
                    needed.add(needs.asString());
                }
                needs.forEach(n -> needed.add(n.asString()));
                assertTrue(jobs.containsAll(needed), name + ": " + job.getKey() + " needs an unknown job: " + needed);
            }
        }
    }

    @Test
    void ciRunsTheCiScriptOnPushesAndPullRequests() throws Exception {
        JsonNode ci = workflow("ci.yml");
        assertTrue(triggers(ci).has("push") && triggers(ci).has("pull_request"), ci.toString());
        boolean runsCi = false;
        for (JsonNode job : ci.path("jobs")) {
            runsCi |= steps(job).stream().anyMatch(s -> s.path("run").asString("").trim().equals(".ci/run"));
        }
        assertTrue(runsCi, "no CI job runs .ci/run");
        assertTrue(Files.isExecutable(ROOT.resolve(".ci/run")));
    }

    @Test
    void theReleaseBuildsBothImagesWithProvenancePushesTheChartAndAttachesTheJars() throws Exception {
        JsonNode release = workflow("release.yml");
        assertTrue(triggers(release).path("push").has("tags"), "released from tags");
        JsonNode images = release.path("jobs").path("images");
        List<String> components = new ArrayList<>();
        images.path("strategy").path("matrix").path("component").forEach(c -> components.add(c.asString()));
        assertEquals(List.of("agent", "coordinator"), components);
        for (String component : components) {
            assertTrue(Files.isRegularFile(ROOT.resolve("Dockerfile." + component)), "Dockerfile." + component);
        }
        JsonNode build = steps(images).stream().filter(s -> s.path("uses").asString("").startsWith("docker/build-push-action@"))
                .findFirst().orElseThrow();
        assertEquals("Dockerfile.${{ matrix.component }}", build.path("with").path("file").asString());
        assertTrue(build.path("with").path("push").asBoolean());
        assertEquals("mode=max", build.path("with").path("provenance").asString());
        assertTrue(build.path("with").path("sbom").asBoolean());
        assertEquals("write", images.path("permissions").path("packages").asString());
        assertEquals("write", images.path("permissions").path("id-token").asString());

        // the chart pushed as an OCI artifact is the archive attached to the release, checked against its sum
        String chartJob = release.path("jobs").path("chart").toString();
        assertTrue(chartJob.contains("gh release download") && chartJob.contains("sha256sum -c") && chartJob.contains("helm push")
                && chartJob.contains("oci://"), chartJob);
        assertTrue(release.path("jobs").path("chart").path("needs").toString().contains("jars"), "the chart job needs the release");

        // the release's assets are what .ci/release-assets assembles (ReleaseAssetsTest), all of them attached
        List<String> jarsSteps = steps(release.path("jobs").path("jars")).stream().map(s -> s.path("run").asString("")).toList();
        int assemble = indexOf(jarsSteps, ".ci/release-assets \"${{ needs.version.outputs.version }}\" dist");
        int create = indexOf(jarsSteps, "--notes \"See CHANGELOG.md.\" dist/*\n");
        assertTrue(jarsSteps.get(Math.max(create, 0)).contains("gh release create"), jarsSteps.toString());
        assertTrue(assemble >= 0 && create > assemble, "assemble the assets, then attach dist/*: " + jarsSteps);
        String script = text(".ci/release-assets");
        for (String jar : List.of("agent/target/crifresh-agent.jar", "coordinator/target/crifresh-coordinator.jar",
                "sim/target/crifresh-sim.jar")) {
            assertTrue(script.contains(jar), ".ci/release-assets takes " + jar);
            String module = jar.substring(0, jar.indexOf('/'));
            String finalName = jar.substring(jar.lastIndexOf('/') + 1, jar.length() - ".jar".length());
            assertTrue(text(module + "/pom.xml").contains(finalName + ".jar"), module + "/pom.xml builds " + jar);
        }
        for (Map.Entry<String, JsonNode> job : release.path("jobs").properties()) {
            boolean attests = steps(job.getValue()).stream()
                    .anyMatch(s -> s.path("uses").asString("").startsWith("actions/attest-build-provenance@"));
            if (attests) {
                assertEquals("write", job.getValue().path("permissions").path("attestations").asString(), job.getKey());
            }
        }
    }

    private static int indexOf(List<String> runs, String text) {
        for (int i = 0; i < runs.size(); i++) {
            if (runs.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void theReadmeInstallLineNamesExactlyThePackagesCiInstalls() throws Exception {
        Matcher readme = Pattern.compile("(?m)^sudo apt-get install -y ([^&\\n]+?)(?: && (.+))?$").matcher(text("README.md"));
        assertTrue(readme.find(), "README.md has no apt-get install line");
        Set<String> documented = new TreeSet<>(List.of(readme.group(1).trim().split("\\s+")));
        // the same line unpacks containerd 1.7 and 2.1, as .ci/run does
        assertEquals("sudo -H reality/bin/fetch-containerd", readme.group(2), "README.md's install line does not fetch containerd 1.7 and 2.1");
        assertTrue(text(".ci/run").contains("\nreality/bin/fetch-containerd\n"), ".ci/run does not fetch containerd 1.7 and 2.1");
        assertFalse(readme.find(), "README.md has more than one install line");
        Set<String> installed = new TreeSet<>();
        Matcher ci = Pattern.compile("(?m)^\\s*\\[[\\w-]+\\]=([\\w.+-]+)$").matcher(text(".ci/run"));
        while (ci.find()) {
            installed.add(ci.group(1));
        }
        assertEquals(documented, installed);
    }
}
