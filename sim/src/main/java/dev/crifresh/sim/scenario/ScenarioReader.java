package dev.crifresh.sim.scenario;

import dev.crifresh.common.text.IoErrors;
import dev.crifresh.coordinator.base.MaxUnavailable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads and validates a scenario file (docs/scenarios.md): unknown fields, wrong types, unknown enum values,
 * negative durations (other than {@code configWrittenSecondsAfterBoot}), times after "now", duplicate
 * node names and malformed budgets are rejected with one line naming the field and the node.
 */
public final class ScenarioReader {
    public static final String DEFAULT_REGISTRY = "ghcr.io";
    public static final Credential DEFAULT_DESIRED = new Credential("deploy-bot", "token-v2");
    /** The largest simulated cluster (the scale benchmark runs 1,000 nodes with one-shot attestation responders). */
    static final int MAX_NODES = 1000;
    static final int MAX_PODS = 200;
    /** Longer than any real osImage; keeps a scenario's report readable. */
    static final int MAX_OS_IMAGE = 256;
    static final int MAX_REBOOT_MILLIS = 600_000;
    /** A clock offset reaches back to the epoch (about 1.8e9 s today), never beyond this. */
    static final double MAX_CLOCK_OFFSET_SECONDS = 4e9;

    private static final List<String> ROOT_FIELDS =
            List.of("registry", "desiredCredential", "revokedCredentials", "coordinator", "simulation", "alerts", "nodes");
    private static final List<String> COORDINATOR_FIELDS = List.of("maxUnavailable", "action",
            "configTimeoutSeconds", "rebootTimeoutSeconds", "attestTimeoutSeconds", "staleTaint", "pullProof", "pullProofImage",
            "pullProofTimeoutSeconds", "etcdCheck", "blockOnAlert", "blockOnPodSelector", "blockTimeoutSeconds", "force", "deleteEmptyDirData");
    private static final List<String> SIMULATION_FIELDS = List.of("rebootMillis", "containerdRestartsOnConfigChange",
            "podTerminationMillis");
    private static final List<String> CREDENTIAL_FIELDS = List.of("username", "password");
    private static final List<String> ALERT_FIELDS = List.of("name", "clearsAfterSeconds");
    static final int MAX_LIST = 100;
    /** A Prometheus label value as an alert name: letters, digits, '_' and ':' (no leading digit). */
    private static final Pattern ALERT_NAME = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");

    private static final Pattern REGISTRY = Pattern.compile("[A-Za-z0-9.-]+(:[0-9]{1,5})?");

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private ScenarioReader() {
    }

    /** Reads a file; errors start with the file name. */
    public static Scenario read(Path file) throws ScenarioException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ScenarioException(file + ": no such file");
        } catch (IOException e) {
            throw new ScenarioException(file + ": cannot read: " + (Files.isDirectory(file) ? "is a directory, not a scenario file"
                    : IoErrors.describe(e)));
        }
        try {
            return parse(text);
        } catch (ScenarioException e) {
            throw new ScenarioException(file + ": " + e.getMessage());
        }
    }

    public static Scenario parse(String yaml) throws ScenarioException {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JacksonException e) {
            throw new ScenarioException(yamlError(e));
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new ScenarioException("the scenario is empty, expected a mapping with at least 'nodes'");
        }
        YamlObject top = YamlObject.of(root, "", ROOT_FIELDS);
        String registry = top.string("registry", DEFAULT_REGISTRY, false);
        if (!REGISTRY.matcher(registry).matches()) {
            throw new ScenarioException("registry: '" + registry + "' is not a registry host (e.g. ghcr.io)");
        }
        Credential desired = top.has("desiredCredential")
                ? credential(top.raw("desiredCredential"), top.pathOf("desiredCredential"))
                : DEFAULT_DESIRED;
        List<Credential> revoked = revokedCredentials(top, desired);
        CoordinatorSpec coordinator = coordinator(top);
        SimulationSpec simulation = simulation(top);
        List<AlertSpec> alerts = alerts(top);
        List<NodeSpec> nodes = NodeSpecReader.nodes(top);
        return new Scenario(registry, desired, revoked, coordinator, simulation, alerts, nodes);
    }

    private static List<Credential> revokedCredentials(YamlObject top, Credential desired) throws ScenarioException {
        JsonNode list = top.raw("revokedCredentials");
        if (list == null) {
            if (top.has("revokedCredentials")) {
                throw new ScenarioException("revokedCredentials: no value given, expected a list of {username, password}");
            }
            return List.of();
        }
        if (!list.isArray() || list.size() > MAX_LIST) {
            throw new ScenarioException("revokedCredentials: expected a list of at most " + MAX_LIST
                    + " {username, password}, got " + YamlObject.describe(list));
        }
        List<Credential> revoked = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Credential c = credential(list.get(i), "revokedCredentials[" + i + "]");
            if (c.equals(desired)) {
                throw new ScenarioException("revokedCredentials[" + i + "]: is the desired credential; a registry that"
                        + " rejects it makes every pull fail");
            }
            revoked.add(c);
        }
        return revoked;
    }

    private static List<AlertSpec> alerts(YamlObject top) throws ScenarioException {
        JsonNode list = top.raw("alerts");
        if (list == null) {
            if (top.has("alerts")) {
                throw new ScenarioException("alerts: no value given, expected a list of {name, clearsAfterSeconds}");
            }
            return List.of();
        }
        if (!list.isArray() || list.size() > MAX_LIST) {
            throw new ScenarioException("alerts: expected a list of at most " + MAX_LIST
                    + " {name, clearsAfterSeconds}, got " + YamlObject.describe(list));
        }
        List<AlertSpec> alerts = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            YamlObject a = YamlObject.of(list.get(i), "alerts[" + i + "]", ALERT_FIELDS);
            String name = a.string("name", null, false);
            if (!ALERT_NAME.matcher(name).matches()) {
                throw new ScenarioException(a.pathOf("name") + ": '" + name
                        + "' is not an alert name (letters, digits, '_' and ':')");
            }
            Duration clears = a.has("clearsAfterSeconds") ? a.seconds("clearsAfterSeconds", null, false) : null;
            alerts.add(new AlertSpec(name, clears));
        }
        return alerts;
    }

    private static CoordinatorSpec coordinator(YamlObject top) throws ScenarioException {
        CoordinatorSpec d = CoordinatorSpec.defaults();
        if (!top.has("coordinator")) {
            return d;
        }
        YamlObject c = YamlObject.of(top.raw("coordinator"), "coordinator", COORDINATOR_FIELDS);
        return new CoordinatorSpec(
                maxUnavailable(c, d.maxUnavailable()),
                c.choice("action", d.action(), ScenarioAction.class),
                c.positiveSeconds("configTimeoutSeconds", seconds(d.configTimeout())),
                c.positiveSeconds("rebootTimeoutSeconds", seconds(d.rebootTimeout())),
                c.positiveSeconds("attestTimeoutSeconds", seconds(d.attestTimeout())),
                c.choice("staleTaint", d.staleTaint(), ScenarioStaleTaint.class),
                gates(c),
                c.bool("force", d.force()),
                c.bool("deleteEmptyDirData", d.deleteEmptyDirData()));
    }

    private static GateSpec gates(YamlObject c) throws ScenarioException {
        GateSpec d = GateSpec.defaults();
        String pullProof = c.string("pullProof", d.pullProof(), false);
        if (!List.of("off", "rebooted", "all").contains(pullProof)) {
            throw new ScenarioException(c.pathOf("pullProof") + ": unknown value '" + pullProof + "', expected off | rebooted | all");
        }
        String image = c.has("pullProofImage") ? c.string("pullProofImage", null, false) : null;
        if (image != null && (image.chars().anyMatch(ch -> Character.isWhitespace(ch) || Character.isISOControl(ch)))) {
            throw new ScenarioException(c.pathOf("pullProofImage") + ": '" + image + "' is not an image reference");
        }
        String etcd = c.string("etcdCheck", d.etcdCheck(), false);
        if (!List.of("talosctl", "none").contains(etcd)) {
            throw new ScenarioException(c.pathOf("etcdCheck") + ": unknown value '" + etcd + "', expected talosctl | none");
        }
        String alert = c.has("blockOnAlert") ? c.string("blockOnAlert", null, false) : null;
        if (alert != null) {
            try {
                Pattern.compile(alert);
            } catch (PatternSyntaxException e) {
                throw new ScenarioException(c.pathOf("blockOnAlert") + ": not a regular expression: " + e.getDescription());
            }
        }
        return new GateSpec(pullProof, image,
                c.positiveSeconds("pullProofTimeoutSeconds", seconds(d.pullProofTimeout())),
                etcd, alert,
                c.has("blockOnPodSelector") ? c.string("blockOnPodSelector", null, false) : null,
                c.positiveSeconds("blockTimeoutSeconds", seconds(d.blockTimeout())));
    }

    /**
     * The budget as the coordinator's {@code --max-unavailable} reads it ({@link MaxUnavailable#parse}), so
     * that a scenario accepts exactly the values the coordinator does; normalised ({@code '2'} → {@code 2}).
     */
    private static String maxUnavailable(YamlObject c, String fallback) throws ScenarioException {
        if (!c.has("maxUnavailable")) {
            return fallback;
        }
        JsonNode value = c.raw("maxUnavailable");
        String problem = c.pathOf("maxUnavailable") + ": expected a count of at least 1 (e.g. 2) or a percentage "
                + "from 1% to 100% (e.g. 25%), got " + YamlObject.describe(value);
        String text;
        if (value != null && value.isIntegralNumber()) {
            text = value.asString();
        } else if (value != null && value.isString()) {
            text = value.stringValue();
        } else {
            throw new ScenarioException(problem);
        }
        try {
            return MaxUnavailable.parse(text).toString();
        } catch (IllegalArgumentException e) {
            throw new ScenarioException(problem);
        }
    }

    private static SimulationSpec simulation(YamlObject top) throws ScenarioException {
        SimulationSpec d = SimulationSpec.defaults();
        if (!top.has("simulation")) {
            return d;
        }
        YamlObject s = YamlObject.of(top.raw("simulation"), "simulation", SIMULATION_FIELDS);
        int rebootMillis = s.wholeNumber("rebootMillis", (int) d.reboot().toMillis(), 0, MAX_REBOOT_MILLIS);
        int podTerminationMillis = s.wholeNumber("podTerminationMillis", (int) d.podTermination().toMillis(), 0,
                MAX_REBOOT_MILLIS);
        return new SimulationSpec(Duration.ofMillis(rebootMillis),
                s.bool("containerdRestartsOnConfigChange", d.containerdRestartsOnConfigChange()),
                Duration.ofMillis(podTerminationMillis));
    }

    static Credential credential(JsonNode raw, String path) throws ScenarioException {
        YamlObject c = YamlObject.of(raw, path, CREDENTIAL_FIELDS);
        Credential credential = new Credential(c.string("username", null, false), c.string("password", null, true));
        if (credential.username().chars().anyMatch(Character::isISOControl)) {
            throw new ScenarioException(c.pathOf("username") + ": must not contain control characters");
        }
        if (credential.password().chars().anyMatch(Character::isISOControl)) {
            throw new ScenarioException(c.pathOf("password") + ": must not contain control characters");
        }
        return credential;
    }

    private static Double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    private static String yamlError(JacksonException e) {
        TokenStreamLocation at = e.getLocation();
        String where = at == null || at.getLineNr() < 1 ? "" : "line " + at.getLineNr() + ", column "
                + at.getColumnNr() + ": ";
        String problem = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
        return "not valid YAML: " + where + problem.lines().findFirst().orElse(problem);
    }
}
