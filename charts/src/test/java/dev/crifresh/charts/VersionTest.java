package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.common.cli.CrifreshVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The chart, both images and the jars are released together under one version: the project's (what every
 * command line's {@code --version} prints), without {@code -SNAPSHOT}. A release bumps the pom, Chart.yaml
 * ({@code version}, {@code appVersion}) and the Dockerfiles' {@code ARG VERSION} together; this fails when one
 * is forgotten.
 */
class VersionTest {
    @Test
    void chartImagesAndJarsCarryTheProjectVersion() throws Exception {
        String release = CrifreshVersion.release();
        JsonNode chart = YAMLMapper.builder().build().readTree(Files.readString(Chart.SOURCE.resolve("Chart.yaml")));
        assertEquals(release, chart.get("version").asString(), "Chart.yaml version");
        assertEquals(release, chart.get("appVersion").asString(), "Chart.yaml appVersion (the default image tag)");
        for (String image : new String[] {"agent", "coordinator"}) {
            Path dockerfile = DockerfileTest.ROOT.resolve("Dockerfile." + image);
            Matcher m = Pattern.compile("(?m)^ARG VERSION=(\\S+)$").matcher(Files.readString(dockerfile));
            assertEquals(true, m.find(), dockerfile + " has no ARG VERSION");
            assertEquals(release, m.group(1), dockerfile + " ARG VERSION");
        }
    }
}
