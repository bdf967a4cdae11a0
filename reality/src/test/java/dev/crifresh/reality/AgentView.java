package dev.crifresh.reality;

import dev.crifresh.agent.cli.AgentMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The agent's {@code observe} run in-process on the real /proc and a node's files: what it prints, parsed. */
record AgentView(String verdict, String reason, String proof, String message, Map<String, String> registries) {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** {@code observe --proc-root /proc --host-root <node> --fingerprint-key <key> [--watch …] [extra…]}. */
    static AgentView observe(CriNode node, Path fingerprintKey, List<String> watch, String... extra) {
        return of(observeJson(node, fingerprintKey, watch, extra));
    }

    /** The same run's whole output, for the fields this record does not keep. */
    static JsonNode observeJson(CriNode node, Path fingerprintKey, List<String> watch, String... extra) {
        List<String> args = new ArrayList<>(List.of("observe", "--proc-root", "/proc",
                "--host-root", node.hostRoot().toString(), "--fingerprint-key", fingerprintKey.toString(),
                "--watch", String.join(",", watch)));
        args.addAll(List.of(extra));
        CommandLine cl = AgentMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args.toArray(String[]::new));
        if (code != 0) {
            throw new IllegalStateException("observe exited " + code + ": " + err);
        }
        return JSON.readTree(out.toString());
    }

    static AgentView of(JsonNode root) {
        Map<String, String> registries = new TreeMap<>();
        JsonNode reg = root.get("registries");
        if (reg != null && reg.isObject()) {
            reg.properties().forEach(e -> registries.put(e.getKey(), e.getValue().stringValue()));
        }
        return new AgentView(root.get("verdict").stringValue(), root.get("reason").stringValue(),
                root.get("proof").stringValue(), root.get("message").stringValue(), registries);
    }

    String summary() {
        return verdict + " (" + reason + (proof.equals("none") ? "" : ", " + proof) + ")";
    }
}
