package dev.crifresh.sim.scenario;

import dev.crifresh.common.text.IoErrors;
import dev.crifresh.coordinator.base.MaxUnavailable;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
@SuppressWarnings("checkstyle:filelength") // every field of a scenario file read and bounded in one place
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
    private static final List<String> NODE_FIELDS = List.of("name", "role", "bootedSecondsAgo",
            "containerdStartedSecondsAfterBoot", "configWrittenSecondsAfterBoot", "credential", "configUpdate",
            "marker", "agent", "ready", "cordoned", "reboot", "pods", "etcd", "batchJob",
            "containerdCredential", "containerdCredentialSticks", "joinsAfterSeconds", "clock", "talosVersion", "osImage",
            "barePods", "emptyDirPods", "taints", "deletedAfterSeconds");
    private static final List<String> TAINT_FIELDS = List.of("key", "effect");
    private static final List<String> TAINT_EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");
    /** A taint key: an optional DNS-subdomain prefix and '/', then a name (as kube-apiserver validates it). */
    private static final Pattern TAINT_KEY = Pattern.compile(
            "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    private static final List<String> CLOCK_FIELDS = List.of("offsetAtBootSeconds", "steppedSecondsAfterBoot", "everyBoot");
    private static final List<String> CREDENTIAL_FIELDS = List.of("username", "password");
    private static final List<String> CONFIG_UPDATE_FIELDS = List.of("afterSeconds", "credential");
    private static final List<String> ALERT_FIELDS = List.of("name", "clearsAfterSeconds");
    private static final List<String> BATCH_JOB_FIELDS = List.of("finishesAfterSeconds");
    static final int MAX_LIST = 100;
    /** A Prometheus label value as an alert name: letters, digits, '_' and ':' (no leading digit). */
    private static final Pattern ALERT_NAME = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");

    /** A Kubernetes node name: an RFC 1123 subdomain. */
    private static final Pattern NODE_NAME =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
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
        List<NodeSpec> nodes = nodes(top);
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

    private static List<NodeSpec> nodes(YamlObject top) throws ScenarioException {
        JsonNode list = top.raw("nodes");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new ScenarioException("nodes: expected a list of at least one node, got "
                    + (list != null && list.isArray() ? "an empty list" : YamlObject.describe(list)));
        }
        if (list.size() > MAX_NODES) {
            throw new ScenarioException("nodes: " + list.size() + " nodes, the simulation runs at most " + MAX_NODES);
        }
        List<NodeSpec> nodes = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < list.size(); i++) {
            NodeSpec node = node(list.get(i), i);
            Integer earlier = seen.putIfAbsent(node.name(), i);
            if (earlier != null) {
                throw new ScenarioException(label(i, node.name()) + ".name: duplicate node name '" + node.name()
                        + "' (also nodes[" + earlier + "])");
            }
            nodes.add(node);
        }
        return nodes;
    }

    private static NodeSpec node(JsonNode raw, int index) throws ScenarioException {
        JsonNode rawName = raw != null && raw.isObject() ? raw.get("name") : null;
        String label = label(index, rawName != null && rawName.isString() ? rawName.stringValue() : null);
        YamlObject n = YamlObject.of(raw, label, NODE_FIELDS);
        String name = n.string("name", null, false);
        if (name.length() > 253 || !NODE_NAME.matcher(name).matches()) {
            throw new ScenarioException(n.pathOf("name") + ": '" + name
                    + "' is not a valid node name (lower-case letters, digits, '-' and '.')");
        }
        Duration bootedAgo = n.seconds("bootedSecondsAgo", 86400d, false);
        Duration containerdStarted = n.seconds("containerdStartedSecondsAfterBoot", 6d, false);
        Duration configWritten = n.seconds("configWrittenSecondsAfterBoot", 3d, true);
        notAfterNow(n, "containerdStartedSecondsAfterBoot", containerdStarted, bootedAgo);
        notAfterNow(n, "configWrittenSecondsAfterBoot", configWritten, bootedAgo);
        CredentialChoice credential = n.has("credential")
                ? credentialChoice(n.raw("credential"), n.pathOf("credential"))
                : CredentialChoice.DESIRED;
        ConfigUpdate update = configUpdate(n);
        Credential containerdCredential = n.raw("containerdCredential") == null ? null
                : credential(n.raw("containerdCredential"), n.pathOf("containerdCredential"));
        boolean sticks = n.bool("containerdCredentialSticks", false);
        if (sticks && containerdCredential == null) {
            throw new ScenarioException(n.pathOf("containerdCredentialSticks")
                    + ": needs containerdCredential (the credential containerd keeps loading)");
        }
        return new NodeSpec(name,
                n.choice("role", Role.WORKER, Role.class),
                bootedAgo, containerdStarted, configWritten, credential, update,
                n.choice("marker", Marker.CURRENT, Marker.class),
                n.choice("agent", AgentMode.RUNNING, AgentMode.class),
                n.bool("ready", true),
                n.bool("cordoned", false),
                n.choice("reboot", RebootBehaviour.OK, RebootBehaviour.class),
                n.wholeNumber("pods", 0, 0, MAX_PODS),
                etcd(n),
                batchJob(n),
                containerdCredential,
                sticks,
                n.has("joinsAfterSeconds") ? n.seconds("joinsAfterSeconds", null, false) : null,
                clock(n, bootedAgo),
                talosVersion(n),
                osImage(n),
                n.wholeNumber("barePods", 0, 0, MAX_PODS),
                n.wholeNumber("emptyDirPods", 0, 0, MAX_PODS),
                taints(n),
                deletedAfter(n));
    }

    private static List<TaintSpec> taints(YamlObject n) throws ScenarioException {
        JsonNode list = n.raw("taints");
        if (list == null) {
            if (n.has("taints")) {
                throw new ScenarioException(n.pathOf("taints") + ": no value given, expected a list of {key, effect}");
            }
            return List.of();
        }
        if (!list.isArray() || list.size() > MAX_LIST) {
            throw new ScenarioException(n.pathOf("taints") + ": expected a list of at most " + MAX_LIST + " {key, effect}, got "
                    + YamlObject.describe(list));
        }
        List<TaintSpec> taints = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            YamlObject t = YamlObject.of(list.get(i), n.pathOf("taints") + "[" + i + "]", TAINT_FIELDS);
            String key = t.string("key", null, false);
            if (key.length() > 316 || !TAINT_KEY.matcher(key).matches()) {
                throw new ScenarioException(t.pathOf("key") + ": '" + key + "' is not a taint key (e.g. ToBeDeletedByClusterAutoscaler)");
            }
            String effect = t.string("effect", "NoSchedule", false);
            if (!TAINT_EFFECTS.contains(effect)) {
                throw new ScenarioException(t.pathOf("effect") + ": unknown value '" + effect + "', expected "
                        + String.join(" | ", TAINT_EFFECTS));
            }
            TaintSpec taint = new TaintSpec(key, effect);
            if (taints.stream().anyMatch(o -> o.key().equals(key) && o.effect().equals(effect))) {
                throw new ScenarioException(t.pathOf("key") + ": duplicate taint " + key + ":" + effect);
            }
            taints.add(taint);
        }
        return taints;
    }

    private static Duration deletedAfter(YamlObject n) throws ScenarioException {
        if (!n.has("deletedAfterSeconds")) {
            return null;
        }
        Duration after = n.seconds("deletedAfterSeconds", null, false);
        if (n.has("joinsAfterSeconds") && after.compareTo(n.seconds("joinsAfterSeconds", null, false)) <= 0) {
            throw new ScenarioException(n.pathOf("deletedAfterSeconds") + ": must be after joinsAfterSeconds (the node is deleted"
                    + " after it joined)");
        }
        return after;
    }

    private static ClockSpec clock(YamlObject n, Duration bootedAgo) throws ScenarioException {
        JsonNode raw = n.raw("clock");
        if (raw == null) {
            if (n.has("clock")) {
                throw new ScenarioException(n.pathOf("clock") + ": no value given, expected {offsetAtBootSeconds, "
                        + "steppedSecondsAfterBoot, everyBoot}");
            }
            return ClockSpec.CORRECT;
        }
        YamlObject c = YamlObject.of(raw, n.pathOf("clock"), CLOCK_FIELDS);
        Duration offset = c.seconds("offsetAtBootSeconds", 0d, true, MAX_CLOCK_OFFSET_SECONDS);
        Duration stepped = c.seconds("steppedSecondsAfterBoot", 0d, false);
        // the agent starts only after the step, and it runs now
        notAfterNow(c, "steppedSecondsAfterBoot", stepped, bootedAgo);
        Duration sinceEpoch = Duration.ofSeconds(Instant.now().getEpochSecond()).minus(bootedAgo);
        if (offset.negated().compareTo(sinceEpoch) >= 0) {
            throw new ScenarioException(c.pathOf("offsetAtBootSeconds") + ": " + format(offset)
                    + " puts the clock at boot before 1970-01-01");
        }
        return new ClockSpec(offset, stepped, c.bool("everyBoot", true));
    }

    private static TalosVersion talosVersion(YamlObject n) throws ScenarioException {
        String text = n.string("talosVersion", TalosVersion.DEFAULT.text(), false);
        try {
            return TalosVersion.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ScenarioException(n.pathOf("talosVersion") + ": " + e.getMessage());
        }
    }

    /** Any string, empty included (a kubelet that reports none): only its length is bounded. */
    private static String osImage(YamlObject n) throws ScenarioException {
        JsonNode raw = n.raw("osImage");
        if (raw == null) {
            if (n.has("osImage")) {
                throw new ScenarioException(n.pathOf("osImage") + ": no value given, expected a string (quote an empty one: '')");
            }
            return null;
        }
        if (!raw.isString()) {
            throw new ScenarioException(n.pathOf("osImage") + ": expected a string, got " + YamlObject.describe(raw));
        }
        if (raw.stringValue().length() > MAX_OS_IMAGE) {
            throw new ScenarioException(n.pathOf("osImage") + ": longer than " + MAX_OS_IMAGE + " characters");
        }
        return raw.stringValue();
    }

    private static EtcdMember etcd(YamlObject n) throws ScenarioException {
        EtcdMember etcd = n.choice("etcd", EtcdMember.HEALTHY, EtcdMember.class);
        if (n.has("etcd") && n.choice("role", Role.WORKER, Role.class) != Role.CONTROL_PLANE) {
            throw new ScenarioException(n.pathOf("etcd") + ": only a control-plane node runs an etcd member");
        }
        return etcd;
    }

    private static BatchJobSpec batchJob(YamlObject n) throws ScenarioException {
        JsonNode raw = n.raw("batchJob");
        if (raw == null) {
            return null;
        }
        YamlObject b = YamlObject.of(raw, n.pathOf("batchJob"), BATCH_JOB_FIELDS);
        return new BatchJobSpec(b.has("finishesAfterSeconds") ? b.seconds("finishesAfterSeconds", null, false) : null);
    }

    private static void notAfterNow(YamlObject n, String field, Duration afterBoot, Duration bootedAgo)
            throws ScenarioException {
        if (afterBoot.compareTo(bootedAgo) > 0) {
            throw new ScenarioException(n.pathOf(field) + ": " + format(afterBoot) + " is after now (the node booted "
                    + format(bootedAgo) + " seconds ago)");
        }
    }

    private static ConfigUpdate configUpdate(YamlObject n) throws ScenarioException {
        JsonNode raw = n.raw("configUpdate");
        if (raw == null) {
            return null;
        }
        YamlObject u = YamlObject.of(raw, n.pathOf("configUpdate"), CONFIG_UPDATE_FIELDS);
        Duration after = u.seconds("afterSeconds", null, false);
        CredentialChoice credential = u.has("credential")
                ? credentialChoice(u.raw("credential"), u.pathOf("credential"))
                : CredentialChoice.DESIRED;
        return new ConfigUpdate(after, credential);
    }

    private static CredentialChoice credentialChoice(JsonNode raw, String path) throws ScenarioException {
        if (raw != null && raw.isString()) {
            if (raw.stringValue().equals("desired")) {
                return CredentialChoice.DESIRED;
            }
            throw new ScenarioException(path + ": expected 'desired' or {username, password}, got a string");
        }
        if (raw == null || !raw.isObject()) {
            throw new ScenarioException(path + ": expected 'desired' or {username, password}, got "
                    + YamlObject.describe(raw));
        }
        return new CredentialChoice(credential(raw, path));
    }

    private static Credential credential(JsonNode raw, String path) throws ScenarioException {
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

    private static String label(int index, String name) {
        return "nodes[" + index + "]" + (name == null ? "" : " (" + name + ")");
    }

    private static Double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    private static String format(Duration d) {
        return BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString();
    }

    private static String yamlError(JacksonException e) {
        TokenStreamLocation at = e.getLocation();
        String where = at == null || at.getLineNr() < 1 ? "" : "line " + at.getLineNr() + ", column "
                + at.getColumnNr() + ": ";
        String problem = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
        return "not valid YAML: " + where + problem.lines().findFirst().orElse(problem);
    }
}
