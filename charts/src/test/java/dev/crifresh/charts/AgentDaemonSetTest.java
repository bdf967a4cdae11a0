package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class AgentDaemonSetTest {

    private static JsonNode pod;
    private static JsonNode agent;
    private static JsonNode daemonSet;

    @BeforeAll
    static void renderDefaults() {
        daemonSet = Chart.render().one("DaemonSet", "crifresh-agent");
        pod = daemonSet.path("spec").path("template").path("spec");
        assertEquals(1, pod.path("containers").size());
        agent = pod.path("containers").get(0);
    }

    @Test
    void runsOnEveryNodeIncludingControlPlanesWithNodeCriticalPriority() {
        JsonNode tolerations = pod.path("tolerations");
        assertEquals(1, tolerations.size(), "tolerate everything with a single entry");
        assertEquals("Exists", tolerations.get(0).path("operator").asString());
        assertFalse(tolerations.get(0).has("key"), "a key would limit the toleration to one taint");
        assertFalse(tolerations.get(0).has("effect"), "an effect would limit the toleration to one effect");
        assertEquals("system-node-critical", pod.path("priorityClassName").asString());
        assertEquals(Map.of("kubernetes.io/os", "linux"), textMap(pod.path("nodeSelector")));
    }

    @Test
    void seesTheHostsProcessesAndNothingElseOfTheHost() {
        assertTrue(pod.path("hostPID").asBoolean());
        assertFalse(pod.path("hostNetwork").asBoolean(false));
        assertFalse(pod.path("hostIPC").asBoolean(false));
        assertEquals("crifresh-agent", pod.path("serviceAccountName").asString());
        assertTrue(pod.path("automountServiceAccountToken").asBoolean());
    }

    @Test
    void mountsTheCriConfigReadOnlyThroughAnUntypedHostPath() {
        JsonNode volume = volume("host-config-0");
        assertEquals("/etc/cri", volume.path("hostPath").path("path").asString());
        assertFalse(volume.path("hostPath").has("type"), "Talos' kubelet cannot stat /etc/cri: no type check");
        JsonNode mount = mount("host-config-0");
        assertEquals("/host/etc/cri", mount.path("mountPath").asString());
        assertTrue(mount.path("readOnly").asBoolean());

        List<String> hostPaths = pod.path("volumes").values().stream().filter(v -> v.has("hostPath"))
                .map(v -> v.path("hostPath").path("path").asString()).toList();
        assertEquals(List.of("/etc/cri", "/run/containerd"), hostPaths,
                "only the CRI config directory and containerd's socket directory come from the host");
    }

    @Test
    void mountsTheDirectoryOfContainerdsSocketReadOnlyWhereItsAddressResolvesUnderTheHostRoot() {
        JsonNode volume = volume("containerd-socket-dir");
        assertEquals("/run/containerd", volume.path("hostPath").path("path").asString());
        assertFalse(volume.path("hostPath").has("type"), "untyped, like the config directories");
        JsonNode mount = mount("containerd-socket-dir");
        // the agent reads --address /run/containerd/containerd.sock under --host-root=/host
        assertEquals("/host/run/containerd", mount.path("mountPath").asString());
        assertTrue(mount.path("readOnly").asBoolean());
    }

    @Test
    void theSocketDirectoryCanBeLeftUnmounted() {
        JsonNode without = Chart.render(Map.of("agent.containerdSocketHostPath", "")).one("DaemonSet", "crifresh-agent")
                .path("spec").path("template").path("spec");
        assertTrue(without.path("volumes").values().stream()
                .noneMatch(v -> v.path("name").asString().equals("containerd-socket-dir")));
        assertTrue(without.path("containers").get(0).path("volumeMounts").values().stream()
                .noneMatch(m -> m.path("name").asString().equals("containerd-socket-dir")));
        JsonNode elsewhere = Chart.render(Map.of("agent.containerdSocketHostPath", "/var/run/cri/",
                "agent.hostRoot", "/hostfs")).one("DaemonSet", "crifresh-agent").path("spec").path("template").path("spec");
        assertEquals("/var/run/cri", elsewhere.path("volumes").values().stream()
                .filter(v -> v.path("name").asString().equals("containerd-socket-dir")).findFirst().orElseThrow()
                .path("hostPath").path("path").asString());
        assertTrue(elsewhere.path("containers").get(0).path("volumeMounts").values().stream()
                .anyMatch(m -> m.path("mountPath").asString().equals("/hostfs/var/run/cri")));
    }

    @Test
    void everyMountButTmpIsReadOnly() {
        for (JsonNode mount : agent.path("volumeMounts").values()) {
            String name = mount.path("name").asString();
            if (name.equals("tmp")) {
                assertEquals("/tmp", mount.path("mountPath").asString());
                assertTrue(volume("tmp").has("emptyDir"));
            } else {
                assertTrue(mount.path("readOnly").asBoolean(), name + " must be read-only");
            }
        }
    }

    @Test
    void keysComeFromSecretsReadableByTheOwnerOnly() {
        JsonNode signing = volume("signing-key").path("secret");
        assertEquals("crifresh-signing-key", signing.path("secretName").asString());
        assertEquals(0400, signing.path("defaultMode").asInt());
        assertEquals("signing.key", signing.path("items").get(0).path("key").asString());
        JsonNode fingerprint = volume("fingerprint-key").path("secret");
        assertEquals("crifresh-trust-bundle", fingerprint.path("secretName").asString());
        assertEquals(0400, fingerprint.path("defaultMode").asInt());
        assertEquals(List.of("fingerprint.key"),
                fingerprint.path("items").values().stream().map(i -> i.path("key").asString()).toList(),
                "the agent needs the fingerprint key only, not the rest of the trust bundle");
        assertEquals("/etc/crifresh/signing", mount("signing-key").path("mountPath").asString());
        assertEquals("/etc/crifresh/trust", mount("fingerprint-key").path("mountPath").asString());
    }

    @Test
    void runsAsRootWithoutCapabilitiesOnAReadOnlyRootFilesystem() {
        JsonNode podSecurity = pod.path("securityContext");
        assertEquals(0, podSecurity.path("runAsUser").asInt(-1));
        assertEquals("RuntimeDefault", podSecurity.path("seccompProfile").path("type").asString());
        JsonNode security = agent.path("securityContext");
        assertTrue(security.path("readOnlyRootFilesystem").asBoolean());
        assertFalse(security.path("allowPrivilegeEscalation").asBoolean(true));
        assertFalse(security.path("privileged").asBoolean(true));
        assertEquals(List.of("ALL"), strings(security.path("capabilities").path("drop")));
        assertFalse(security.path("capabilities").has("add"));
        assertEquals("RuntimeDefault", security.path("seccompProfile").path("type").asString());
    }

    @Test
    void passesTheFlagsOfRunWithTheNodeNameFromTheDownwardApi() {
        assertEquals(List.of(
                "run",
                "--node-name=$(NODE_NAME)",
                "--proc-root=/proc",
                "--host-root=/host",
                "--mode=talos",
                "--margin=50ms",
                "--heartbeat=5m",
                "--validity=15m",
                "--proc-poll=5s",
                "--metrics-port=9402",
                "--signing-key=/etc/crifresh/signing/signing.key",
                "--fingerprint-key=/etc/crifresh/trust/fingerprint.key",
                "--expiry-lease=crifresh/crifresh-agent-expiry",
                "--expiry-period=20s",
                "--expiry-lease-duration=40s",
                "--pod-name=$(POD_NAME)"), strings(agent.path("args")));
        JsonNode env = agent.path("env").get(0);
        assertEquals("NODE_NAME", env.path("name").asString());
        assertEquals("spec.nodeName", env.path("valueFrom").path("fieldRef").path("fieldPath").asString());
        assertEquals("ghcr.io/crifresh/crifresh-agent:0.1.0", agent.path("image").asString());
    }

    @Test
    void probesHitHealthAndReadinessOnTheMetricsPort() {
        JsonNode port = agent.path("ports").get(0);
        assertEquals("metrics", port.path("name").asString());
        assertEquals(9402, port.path("containerPort").asInt());
        assertEquals("/healthz", agent.path("livenessProbe").path("httpGet").path("path").asString());
        assertEquals("metrics", agent.path("livenessProbe").path("httpGet").path("port").asString());
        assertEquals("/healthz", agent.path("startupProbe").path("httpGet").path("path").asString());
        assertEquals("/readyz", agent.path("readinessProbe").path("httpGet").path("path").asString());
        assertEquals("metrics", agent.path("readinessProbe").path("httpGet").path("port").asString());
        int startupBudget = agent.path("startupProbe").path("periodSeconds").asInt()
                * agent.path("startupProbe").path("failureThreshold").asInt();
        assertTrue(startupBudget >= 120, "a JVM under a CPU limit a user sets needs time to start: " + startupBudget + "s");
    }

    @Test
    void requestsMatchTheMeasuredFootprintAndUpdatesKeepMostNodesAttested() {
        JsonNode resources = agent.path("resources");
        assertEquals("5m", resources.path("requests").path("cpu").asString());
        assertEquals("96Mi", resources.path("requests").path("memory").asString());
        assertEquals("128Mi", resources.path("limits").path("memory").asString());
        // no CPU limit: the first attestation after each reboot waits for the JVM's start (issue 37)
        assertTrue(resources.path("limits").path("cpu").isMissingNode(), resources.toString());
        JsonNode strategy = daemonSet.path("spec").path("updateStrategy");
        assertEquals("RollingUpdate", strategy.path("type").asString());
        assertEquals("10%", strategy.path("rollingUpdate").path("maxUnavailable").asString());
    }

    /** An exact containerd generation, written unquoted (a YAML float) or quoted, reaches the agent as written. */
    @Test
    void anExactContainerdGenerationReachesTheAgent() {
        for (JsonNode ds : List.of(Chart.render("agent-generation.yaml").one("DaemonSet", "crifresh-agent"),
                Chart.render(Map.of("agent.containerdGeneration", "2.2")).one("DaemonSet", "crifresh-agent"))) {
            List<String> args = strings(ds.path("spec").path("template").path("spec").path("containers").get(0)
                    .path("args"));
            assertTrue(args.contains("--containerd-generation=2.3") || args.contains("--containerd-generation=2.2"),
                    args.toString());
        }
        List<String> defaults = strings(agent.path("args"));
        assertTrue(defaults.stream().noneMatch(a -> a.startsWith("--containerd-generation")), defaults.toString());
    }

    @Test
    void customValuesReachThePod() {
        Map<String, Object> sets = new HashMap<>();
        sets.put("agent.mode", "generic");
        sets.put("agent.hostRoot", "/hostfs");
        sets.put("agent.heartbeat", "2m");
        sets.put("agent.metricsPort", 9500);
        sets.put("priorityClassName", "");
        sets.put("image.agent.digest", "sha256:" + "a".repeat(64));
        JsonNode custom = Chart.render(sets, "agent-custom.yaml").one("DaemonSet", "crifresh-agent");
        JsonNode customPod = custom.path("spec").path("template").path("spec");
        JsonNode container = customPod.path("containers").get(0);
        List<String> args = strings(container.path("args"));
        assertTrue(args.contains("--mode=generic"), args.toString());
        assertTrue(args.contains("--host-root=/hostfs"), args.toString());
        assertTrue(args.contains("--heartbeat=2m"), args.toString());
        assertTrue(args.contains("--metrics-port=9500"), args.toString());
        assertTrue(args.contains("--watch=/etc/containerd/config.toml"), args.toString());
        assertTrue(args.contains("--watch=/etc/containerd/conf.d/*.toml"), args.toString());
        assertTrue(args.contains("--containerd-match=/usr/bin/containerd"), args.toString());
        assertTrue(args.contains("--expected-mount=/etc/containerd"), args.toString());
        assertTrue(args.contains("--containerd-generation=two"), args.toString());
        assertEquals("--watch=/etc/containerd/extra.toml", args.get(args.size() - 1), "extraArgs come last");
        assertEquals(9500, container.path("ports").get(0).path("containerPort").asInt());
        assertEquals("ghcr.io/crifresh/crifresh-agent:0.1.0@sha256:" + "a".repeat(64), container.path("image").asString());
        assertFalse(customPod.has("priorityClassName"));

        JsonNode tolerations = customPod.path("tolerations");
        assertEquals(1, tolerations.size());
        assertEquals("dedicated", tolerations.get(0).path("key").asString());
        assertEquals("NoSchedule", tolerations.get(0).path("effect").asString());
        assertEquals("50m", container.path("resources").path("requests").path("cpu").asString());
        assertEquals("256Mi", container.path("resources").path("limits").path("memory").asString());

        List<String> mounts = container.path("volumeMounts").values().stream()
                .filter(m -> m.path("name").asString().startsWith("host-config-"))
                .map(m -> m.path("mountPath").asString() + ":" + m.path("readOnly").asBoolean())
                .toList();
        assertEquals(List.of("/hostfs/etc/containerd:true"), mounts);
        assertEquals("/etc/containerd", customPod.path("volumes").values().stream()
                .filter(v -> v.path("name").asString().equals("host-config-0")).findFirst().orElseThrow()
                .path("hostPath").path("path").asString());
    }

    private static JsonNode volume(String name) {
        return pod.path("volumes").values().stream().filter(v -> name.equals(v.path("name").asString()))
                .findFirst().orElseThrow(() -> new AssertionError("no volume " + name));
    }

    private static JsonNode mount(String name) {
        return agent.path("volumeMounts").values().stream().filter(v -> name.equals(v.path("name").asString()))
                .findFirst().orElseThrow(() -> new AssertionError("no volumeMount " + name));
    }

    static Map<String, String> textMap(JsonNode object) {
        Map<String, String> out = new HashMap<>();
        object.properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
        return out;
    }
}
