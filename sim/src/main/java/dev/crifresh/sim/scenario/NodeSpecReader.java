package dev.crifresh.sim.scenario;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/** Reads the {@code nodes} of a scenario file (docs/scenarios.md) for {@link ScenarioReader}. */
final class NodeSpecReader {
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
    private static final List<String> CONFIG_UPDATE_FIELDS = List.of("afterSeconds", "credential");
    private static final List<String> BATCH_JOB_FIELDS = List.of("finishesAfterSeconds");
    /** A Kubernetes node name: an RFC 1123 subdomain. */
    private static final Pattern NODE_NAME =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private NodeSpecReader() {
    }

    static List<NodeSpec> nodes(YamlObject top) throws ScenarioException {
        JsonNode list = top.raw("nodes");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new ScenarioException("nodes: expected a list of at least one node, got "
                    + (list != null && list.isArray() ? "an empty list" : YamlObject.describe(list)));
        }
        if (list.size() > ScenarioReader.MAX_NODES) {
            throw new ScenarioException("nodes: " + list.size() + " nodes, the simulation runs at most " + ScenarioReader.MAX_NODES);
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
                : ScenarioReader.credential(n.raw("containerdCredential"), n.pathOf("containerdCredential"));
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
                n.wholeNumber("pods", 0, 0, ScenarioReader.MAX_PODS),
                etcd(n),
                batchJob(n),
                containerdCredential,
                sticks,
                n.has("joinsAfterSeconds") ? n.seconds("joinsAfterSeconds", null, false) : null,
                clock(n, bootedAgo),
                talosVersion(n),
                osImage(n),
                n.wholeNumber("barePods", 0, 0, ScenarioReader.MAX_PODS),
                n.wholeNumber("emptyDirPods", 0, 0, ScenarioReader.MAX_PODS),
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
        if (!list.isArray() || list.size() > ScenarioReader.MAX_LIST) {
            throw new ScenarioException(n.pathOf("taints") + ": expected a list of at most " + ScenarioReader.MAX_LIST + " {key, effect}, got "
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
        Duration offset = c.seconds("offsetAtBootSeconds", 0d, true, ScenarioReader.MAX_CLOCK_OFFSET_SECONDS);
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
        if (raw.stringValue().length() > ScenarioReader.MAX_OS_IMAGE) {
            throw new ScenarioException(n.pathOf("osImage") + ": longer than " + ScenarioReader.MAX_OS_IMAGE + " characters");
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
        return new CredentialChoice(ScenarioReader.credential(raw, path));
    }

    private static String label(int index, String name) {
        return "nodes[" + index + "]" + (name == null ? "" : " (" + name + ")");
    }

    private static String format(Duration d) {
        return BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString();
    }
}
