package dev.crifresh.images;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The agent's container as the chart renders it (helm-java, Helm's own Go library), reduced to what a
 * container runtime applies: the one source of the run spec the images tests use. Every field of the
 * pod and container spec is either translated or explicitly known to need no runtime counterpart
 * (probes: the test polls the same paths; scheduling fields): a field added to the chart that this
 * class does not know fails the test instead of being silently left out of the run.
 */
record ChartAgent(
        List<String> args,
        Map<String, String> env,
        Map<String, String> fieldRefEnv,
        boolean hostPid,
        long runAsUser,
        long runAsGroup,
        boolean readOnlyRootFilesystem,
        boolean allowPrivilegeEscalation,
        List<String> capabilitiesDrop,
        String seccomp,
        long memoryLimitBytes,
        double cpuLimit,
        int metricsPort,
        List<String> probePaths,
        List<Mount> mounts) {

    /** A volumeMount with the volume behind it. */
    record Mount(String name, String mountPath, boolean readOnly, String hostPath, List<String> secretItems,
                 int secretMode, boolean emptyDir) {
    }

    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Set<String> POD_FIELDS = Set.of("serviceAccountName", "automountServiceAccountToken", "hostPID",
            "enableServiceLinks", "priorityClassName", "securityContext", "nodeSelector", "tolerations",
            "terminationGracePeriodSeconds", "containers", "volumes", "affinity", "imagePullSecrets");
    private static final Set<String> CONTAINER_FIELDS = Set.of("name", "image", "imagePullPolicy", "args", "env", "ports",
            "startupProbe", "livenessProbe", "readinessProbe", "resources", "securityContext", "volumeMounts");

    /** Renders the chart with these --set values and returns the agent DaemonSet's container. */
    static ChartAgent render(Map<String, Object> sets) {
        TemplateCommand command = new Helm(BuiltImages.REPO.resolve("charts/crifresh")).template()
                .withName("crifresh").withNamespace("crifresh");
        // The expiry leader's Lease needs the in-cluster client (docs/operations.md); these runs reach the mock API
        // through a kubeconfig, so the agent would refuse --expiry-lease. The expiry leader has its own tests.
        Map<String, Object> values = new java.util.LinkedHashMap<>(Map.of("agent.expiry.enabled", false));
        values.putAll(sets);
        for (Map.Entry<String, Object> set : values.entrySet()) {
            command = command.set(set.getKey(), set.getValue());
        }
        String manifest = command.call();
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(manifest)) {
            while (documents.hasNext()) {
                JsonNode o = documents.next();
                if (o != null && "DaemonSet".equals(o.path("kind").asString())) {
                    return from(o.path("spec").path("template").path("spec"));
                }
            }
        }
        throw new AssertionError("the chart renders no DaemonSet");
    }

    @SuppressWarnings("checkstyle:methodlength") // every field of the rendered pod spec checked in one place
    static ChartAgent from(JsonNode pod) {
        unknown("pod spec", pod, POD_FIELDS);
        require(pod.path("containers").size() == 1, "one container");
        require(!pod.has("initContainers") && !pod.path("hostNetwork").asBoolean(false)
                && !pod.path("hostIPC").asBoolean(false), "no init containers, host network or IPC");
        JsonNode c = pod.path("containers").get(0);
        unknown("container", c, CONTAINER_FIELDS);
        JsonNode podSecurity = pod.path("securityContext");
        JsonNode security = c.path("securityContext");
        unknown("pod securityContext", podSecurity, Set.of("runAsUser", "runAsGroup", "runAsNonRoot", "seccompProfile"));
        unknown("securityContext", security, Set.of("readOnlyRootFilesystem", "allowPrivilegeEscalation", "privileged",
                "capabilities", "seccompProfile", "runAsUser", "runAsGroup", "runAsNonRoot"));
        require(!security.path("privileged").asBoolean(false), "not privileged");
        require(security.path("capabilities").path("add").isMissingNode(), "no added capabilities");
        String seccomp = security.path("seccompProfile").path("type")
                .asString(podSecurity.path("seccompProfile").path("type").asString("Unconfined"));

        Map<String, String> env = new LinkedHashMap<>();
        Map<String, String> fieldRefs = new LinkedHashMap<>();
        for (JsonNode e : c.path("env").values()) {
            if (e.has("value")) {
                env.put(e.path("name").asString(), e.path("value").asString());
            } else {
                String field = e.path("valueFrom").path("fieldRef").path("fieldPath").asString("");
                require(!field.isEmpty(), "env " + e + " is a value or a fieldRef");
                fieldRefs.put(e.path("name").asString(), field);
            }
        }

        Map<String, JsonNode> volumes = new LinkedHashMap<>();
        pod.path("volumes").values().forEach(v -> volumes.put(v.path("name").asString(), v));
        List<Mount> mounts = new ArrayList<>();
        for (JsonNode m : c.path("volumeMounts").values()) {
            unknown("volumeMount", m, Set.of("name", "mountPath", "readOnly"));
            JsonNode v = volumes.get(m.path("name").asString());
            require(v != null, "volume " + m.path("name").asString());
            List<String> items = new ArrayList<>();
            v.path("secret").path("items").values().forEach(i -> {
                require(i.path("key").asString().equals(i.path("path").asString()), "secret item path = key");
                items.add(i.path("key").asString());
            });
            boolean known = v.has("hostPath") || v.has("secret") || v.has("emptyDir");
            require(known, "volume type of " + v);
            mounts.add(new Mount(m.path("name").asString(), m.path("mountPath").asString(), m.path("readOnly").asBoolean(false),
                    v.has("hostPath") ? v.path("hostPath").path("path").asString() : null, items,
                    v.path("secret").path("defaultMode").asInt(0644), v.has("emptyDir")));
        }
        require(c.path("ports").size() == 1, "one port");
        List<String> probes = new ArrayList<>();
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            JsonNode get = c.path(probe).path("httpGet");
            require(get.path("port").asString().equals(c.path("ports").get(0).path("name").asString()), probe + " on the port");
            probes.add(get.path("path").asString());
        }
        return new ChartAgent(Command.of(c.path("args").values().stream().map(JsonNode::asString).toList()), env, fieldRefs,
                pod.path("hostPID").asBoolean(false),
                security.path("runAsUser").asLong(podSecurity.path("runAsUser").asLong(-1)),
                security.path("runAsGroup").asLong(podSecurity.path("runAsGroup").asLong(-1)),
                security.path("readOnlyRootFilesystem").asBoolean(false),
                security.path("allowPrivilegeEscalation").asBoolean(true),
                c.path("securityContext").path("capabilities").path("drop").values().stream().map(JsonNode::asString).toList(),
                seccomp,
                quantityBytes(c.path("resources").path("limits").path("memory").asString("0")),
                quantityCpu(c.path("resources").path("limits").path("cpu").asString("0")),
                c.path("ports").get(0).path("containerPort").asInt(), probes, mounts);
    }

    /** The container's arguments with $(VAR) references expanded from its environment, as the kubelet does. */
    List<String> expandedArgs(Map<String, String> environment) {
        List<String> out = new ArrayList<>();
        for (String arg : args) {
            String expanded = arg;
            for (Map.Entry<String, String> e : environment.entrySet()) {
                expanded = expanded.replace("$(" + e.getKey() + ")", e.getValue());
            }
            require(!expanded.matches(".*\\$\\([A-Za-z_][A-Za-z0-9_]*\\).*"), "every $(VAR) of " + arg + " is defined");
            out.add(expanded);
        }
        return out;
    }

    static long quantityBytes(String q) {
        Map<String, Long> units = Map.of("Ki", 1L << 10, "Mi", 1L << 20, "Gi", 1L << 30);
        for (Map.Entry<String, Long> u : units.entrySet()) {
            if (q.endsWith(u.getKey())) {
                return Long.parseLong(q.substring(0, q.length() - 2)) * u.getValue();
            }
        }
        return Long.parseLong(q);
    }

    static double quantityCpu(String q) {
        return q.endsWith("m") ? Long.parseLong(q.substring(0, q.length() - 1)) / 1000.0 : Double.parseDouble(q);
    }

    private static void unknown(String what, JsonNode node, Set<String> known) {
        Set<String> names = new TreeSet<>(node.propertyNames());
        names.removeAll(known);
        require(names.isEmpty(), what + " fields the images test does not translate into the run: " + names);
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError("the rendered chart's agent pod: expected " + what);
        }
    }
}
