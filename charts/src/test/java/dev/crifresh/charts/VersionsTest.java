package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * One version for the project: the chart's version and appVersion (the images' default tag) are the Maven
 * version (without {@code -SNAPSHOT} between releases). The release workflow also requires the tag to equal
 * them.
 */
class VersionsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theChartIsVersionedWithTheProject() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile());
        String maven = null;
        for (Node n = pom.getDocumentElement().getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals("version")) {
                maven = e.getTextContent().trim();
            }
        }
        assertTrue(maven != null, "pom.xml has no project version");
        assertTrue(maven.matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), maven);
        String release = maven.replace("-SNAPSHOT", "");
        JsonNode chart = YAMLMapper.builder().build().readTree(ROOT.resolve("charts/crifresh/Chart.yaml").toFile());
        assertEquals(release, chart.path("version").asString(), "Chart.yaml version vs pom.xml " + maven);
        assertEquals(release, chart.path("appVersion").asString(), "Chart.yaml appVersion vs pom.xml " + maven);
    }
}
