package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** action.yml and action/run.sh agree: every input reaches the script, every output is written by it. */
class ActionYmlTest {
    private static final Path REPO = Path.of("").toAbsolutePath().getParent();

    private static JsonNode action() throws Exception {
        return YAMLMapper.builder().build().readTree(REPO.resolve("action.yml").toFile());
    }

    @Test
    void everyInputIsPassedToTheScriptThroughTheEnvironmentOnly() throws Exception {
        JsonNode action = action();
        JsonNode step = action.path("runs").path("steps").get(0);
        assertEquals("composite", action.path("runs").path("using").asString());
        assertEquals("\"$GITHUB_ACTION_PATH/action/run.sh\"", step.path("run").asString(), "no ${{ }} in run:");
        String script = Files.readString(REPO.resolve("action/run.sh"));
        for (Map.Entry<String, JsonNode> input : action.path("inputs").properties()) {
            String env = "INPUT_" + input.getKey().toUpperCase().replace('-', '_');
            assertEquals("${{ inputs." + input.getKey() + " }}", step.path("env").path(env).asString(), env);
            assertTrue(script.contains(env), "run.sh does not read " + env);
            assertTrue(input.getValue().path("description").asString().length() > 10, input.getKey());
        }
        assertEquals(action.path("inputs").size(), step.path("env").size(), "an env entry without an input");
    }

    @Test
    void everyOutputIsWrittenByTheScript() throws Exception {
        JsonNode action = action();
        String script = Files.readString(REPO.resolve("action/run.sh"));
        for (Map.Entry<String, JsonNode> output : action.path("outputs").properties()) {
            assertEquals("${{ steps.crifresh.outputs." + output.getKey() + " }}", output.getValue().path("value").asString());
            assertTrue(script.contains("write_output " + output.getKey() + " "), "run.sh never writes " + output.getKey());
        }
        assertEquals("crifresh", action.path("runs").path("steps").get(0).path("id").asString());
    }

    /** The action at tag vX runs coordinator X: the default version is the project's. */
    @Test
    void theDefaultCoordinatorVersionIsTheProjectVersion() throws Exception {
        Matcher m = Pattern.compile("<artifactId>crifresh-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(REPO.resolve("pom.xml")));
        assertTrue(m.find());
        assertEquals(m.group(1).replace("-SNAPSHOT", ""), action().path("inputs").path("version").path("default").asString());
    }
}
