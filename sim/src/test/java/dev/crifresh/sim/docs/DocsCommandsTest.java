package dev.crifresh.sim.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.cli.AgentMain;
import dev.crifresh.coordinator.cli.CoordinatorMain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Every coordinator and agent command line in README.md and docs/*.md is one the CLI accepts: each is parsed with the
 * real picocli specifications and the commands' own usage checks ({@link CoordinatorMain#usageError}), without a
 * cluster. Found in fenced blocks: shell lines ({@code $ } prompts, continuations, comments and pipes cut), the
 * {@code run:} of a GitHub step, a Kubernetes container's {@code args:} with a crifresh-coordinator image, and the
 * Action's {@code with:} — run through action/run.sh itself (with a stand-in java that records its arguments), so the
 * inputs map to flags exactly as the Action maps them, action.yml's defaults included.
 */
class DocsCommandsTest {
    private static final Path REPO = Path.of("").toAbsolutePath().getParent();
    private static final Pattern FENCE = Pattern.compile("(?m)^( *)```([A-Za-z]*)[^\\n]*\\n(.*?)^\\1```", Pattern.DOTALL);
    private static final Pattern EXPRESSION = Pattern.compile("\\$\\{\\{([^}]*)}}");
    private static final ObjectMapper YAML = YAMLMapper.builder().build();

    @TempDir
    Path work;

    /** One documented command line: where it is, which program, its arguments. */
    record Found(String where, String program, List<String> args) {
    }

    @Test
    void everyDocumentedCommandLineIsAccepted() throws Exception {
        List<Found> found = new ArrayList<>();
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            Matcher m = FENCE.matcher(text);
            while (m.find()) {
                String where = REPO.relativize(doc) + ":" + (text.substring(0, m.start()).lines().count() + 1);
                String lang = m.group(2).toLowerCase();
                String body = m.group(3).lines().map(l -> l.length() >= m.group(1).length() ? l.substring(m.group(1).length()) : l)
                        .reduce("", (a, b) -> a + b + "\n");
                found.addAll(shellCommands(where, lang, body));
                if (lang.equals("yaml") || lang.equals("yml")) {
                    found.addAll(yamlCommands(where, body));
                }
            }
        }
        assertTrue(found.stream().filter(f -> f.program().equals("coordinator")).count() >= 10, found.toString());
        assertTrue(found.stream().anyMatch(f -> f.program().equals("agent")), found.toString());
        assertTrue(found.stream().anyMatch(f -> f.where().contains("(Action)")), found.toString());
        assertTrue(found.stream().anyMatch(f -> f.where().contains("(container)")), found.toString());
        List<String> rejected = new ArrayList<>();
        for (Found f : found) {
            String error = f.program().equals("yaml") ? "not valid YAML: " + f.args().get(0)
                    : f.program().equals("agent") ? agentError(f.args()) : CoordinatorMain.usageError(f.args().toArray(String[]::new));
            if (error != null) {
                rejected.add(f.where() + ": " + f.program() + " " + String.join(" ", f.args()) + "\n    → " + error.strip());
            }
        }
        assertEquals("", String.join("\n", rejected), rejected.size() + " of " + found.size() + " documented command lines are rejected");
    }

    /** The extractor itself, on the shapes the docs use. */
    @Test
    void theExtractorFindsTheShapesTheDocsUse() {
        String block = """
                $ java -jar coordinator/target/crifresh-coordinator.jar plan --trust-bundle t \\
                    --credential-file "c d.json"   # a comment
                crifresh-coordinator keys init --out-dir ./keys | tee log
                kubectl -n crifresh create token crifresh-coordinator --duration 2h
                kubectl exec "$POD" -- java -Xmx16m -jar /opt/crifresh/crifresh-agent.jar observe --proc-root /proc
                """;
        List<Found> found = shellCommands("x", "sh", block);
        assertEquals(List.of(List.of("plan", "--trust-bundle", "t", "--credential-file", "c d.json"),
                List.of("keys", "init", "--out-dir", "./keys"), List.of("observe", "--proc-root", "/proc")),
                found.stream().map(Found::args).toList());
        assertEquals("--block-on-alert needs --prometheus-url", CoordinatorMain.usageError("rollout", "--trust-bundle", "t",
                "--credential-file", "c", "--block-on-alert", "X"));
        assertEquals(null, CoordinatorMain.usageError("rollout", "--trust-bundle", "t", "--credential-file", "c",
                "--block-on-alert", "X", "--prometheus-url", "http://p:9090"));
        assertTrue(CoordinatorMain.usageError("plan", "--no-such-flag").contains("--no-such-flag"));
    }

    private static List<Path> docs() throws IOException {
        List<Path> out = new ArrayList<>(List.of(REPO.resolve("README.md")));
        try (Stream<Path> s = Files.list(REPO.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    private static String agentError(List<String> args) {
        try {
            AgentMain.commandLine().parseArgs(args.toArray(String[]::new));
            return null;
        } catch (CommandLine.ParameterException e) {
            return e.getMessage();
        }
    }

    /**
     * Shell lines in a block: continuations joined, {@code $ } prompts dropped (in a console block only prompted lines
     * are commands), an untagged block only where a line starts with {@code java} or {@code $ } (not a synopsis).
     */
    static List<Found> shellCommands(String where, String lang, String body) {
        List<Found> out = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        StringBuilder joined = new StringBuilder();
        for (String line : body.split("\n", -1)) {
            String l = line.strip();
            if (l.endsWith("\\")) {
                joined.append(l, 0, l.length() - 1).append(' ');
                continue;
            }
            joined.append(l);
            lines.add(joined.toString());
            joined.setLength(0);
        }
        for (String line : lines) {
            boolean prompted = line.startsWith("$ ");
            String l = prompted ? line.substring(2) : line;
            l = l.startsWith("run: ") ? l.substring(5) : l;
            if (lang.equals("console") && !prompted) {
                continue;
            }
            if (lang.isEmpty() && !prompted && !l.startsWith("java ")) {
                continue;
            }
            List<String> tokens = words(l);
            Found f = command(where, tokens);
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    /** The program and its arguments, when the words run crifresh-coordinator or crifresh-agent; else null. */
    private static Found command(String where, List<String> tokens) {
        int i = 0;
        while (i < tokens.size() && tokens.get(i).matches("[A-Z_][A-Z0-9_]*=.*")) {
            i++;
        }
        if (i < tokens.size()) {
            String first = tokens.get(i);
            if (first.equals("crifresh-coordinator") || first.equals("crifresh-agent")) {
                return new Found(where, first.substring("crifresh-".length()), tokens.subList(i + 1, tokens.size()));
            }
        }
        for (int j = 1; j + 1 < tokens.size(); j++) {
            if (tokens.get(j).equals("-jar") && tokens.subList(0, j).stream().anyMatch(t -> t.endsWith("java"))) {
                String jar = tokens.get(j + 1);
                if (jar.endsWith("crifresh-coordinator.jar")) {
                    return new Found(where, "coordinator", tokens.subList(j + 2, tokens.size()));
                }
                if (jar.endsWith("crifresh-agent.jar")) {
                    return new Found(where, "agent", tokens.subList(j + 2, tokens.size()));
                }
            }
        }
        return null;
    }

    /** Shell words: quotes removed, a comment, pipe, list or redirection ends the command. */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    w.append(c);
                }
                continue;
            }
            if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    out.add(w.toString());
                    w.setLength(0);
                    inWord = false;
                }
            } else if ((c == '#' && !inWord) || c == '|' || c == ';' || c == '&' || c == '>' || c == '<') {
                if (c == '>' && inWord && w.toString().matches("\\d")) {
                    w.setLength(0);
                    inWord = false;
                }
                break;
            } else {
                w.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            out.add(w.toString());
        }
        return out;
    }

    /** In a YAML block: a step's {@code run:}, a container's {@code args:}, the Action's {@code with:}. */
    private List<Found> yamlCommands(String where, String body) throws Exception {
        List<Found> out = new ArrayList<>();
        List<JsonNode> nodes = new ArrayList<>();
        try (var docs = YAML.readerFor(JsonNode.class).<JsonNode>readValues(body.replace("<owner>", "owner"))) {
            while (docs.hasNext()) {
                collect(docs.next(), nodes);
            }
        } catch (RuntimeException e) {
            // a manifest or workflow the reader cannot copy as written: reported like a rejected command line
            out.add(new Found(where + " (YAML)", "yaml", List.of(e.getMessage().lines().findFirst().orElse(""))));
            return out;
        }
        for (JsonNode n : nodes) {
            if (n.path("uses").asString("").matches(".*crifresh@.*")) {
                out.add(new Found(where + " (Action)", "coordinator", actionArgs(n.path("with"))));
            }
            if (n.path("image").asString("").contains("crifresh-coordinator") && n.has("args")) {
                List<String> args = new ArrayList<>();
                n.path("args").forEach(a -> args.add(a.asString()));
                out.add(new Found(where + " (container)", "coordinator", args));
            }
        }
        return out;
    }

    private static void collect(JsonNode node, List<JsonNode> out) {
        if (node == null) {
            return;
        }
        if (node.isObject()) {
            out.add(node);
        }
        if (node.isContainer()) {
            node.forEach(child -> collect(child, out));
        }
    }

    /**
     * The Action's inputs as GitHub passes them (INPUT_&lt;NAME&gt;, action.yml's defaults for the rest), run through
     * action/run.sh with a stand-in java that records the arguments. {@code ${{ … }}} expressions become a URL where
     * the expression names one, else a path.
     */
    private List<String> actionArgs(JsonNode with) throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode inputs = YAML.readTree(Files.readString(REPO.resolve("action.yml"))).path("inputs");
        for (Map.Entry<String, JsonNode> e : inputs.properties()) {
            if (e.getValue().has("default")) {
                env.put(inputVar(e.getKey()), e.getValue().path("default").asString());
            }
        }
        for (Map.Entry<String, JsonNode> e : with.properties()) {
            env.put(inputVar(e.getKey()), expressions(e.getValue().asString()));
        }
        Path dir = Files.createTempDirectory(work, "action");
        Path java = dir.resolve("java");
        Path recorded = dir.resolve("args");
        Files.writeString(java, """
                #!/bin/bash
                if [[ "$1" == -XshowSettings:properties ]]; then echo '    java.specification.version = 17' >&2; exit 0; fi
                while [[ $# -gt 0 && "$1" != -jar ]]; do shift; done   # the JVM's own options
                shift 2
                printf '%s\\0' "$@" > "$ARGS_OUT"
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        Path jar = Files.writeString(dir.resolve("crifresh-coordinator.jar"), "stand-in");
        ProcessBuilder pb = new ProcessBuilder("bash", REPO.resolve("action/run.sh").toString()).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("INPUT_") || k.startsWith("GITHUB_"));
        pb.environment().putAll(env);
        pb.environment().put("INPUT_JAVA", java.toString());
        pb.environment().put("INPUT_JAR", jar.toString());
        pb.environment().put("RUNNER_TEMP", dir.toString());
        pb.environment().put("ARGS_OUT", recorded.toString());
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "action/run.sh did not finish");
        if (!Files.exists(recorded)) {
            return List.of("--action-run-sh-refused-its-inputs:" + Files.readString(dir.resolve("log")).strip());
        }
        String all = Files.readString(recorded, StandardCharsets.UTF_8);
        return Arrays.asList(all.substring(0, all.length() - 1).split("\0", -1));
    }

    private static String inputVar(String name) {
        return "INPUT_" + name.toUpperCase().replace('-', '_').replace(' ', '_');
    }

    private static String expressions(String value) {
        Matcher m = EXPRESSION.matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String expr = m.group(1).toLowerCase();
            m.appendReplacement(sb, Matcher.quoteReplacement(expr.contains("url") ? "https://expression.example"
                    : expr.contains("run_id") || expr.contains("run_number") ? "12345" : "/expression/" + expr.strip().replace(' ', '_')));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
