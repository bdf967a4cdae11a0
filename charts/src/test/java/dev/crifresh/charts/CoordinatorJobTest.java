package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class CoordinatorJobTest {

    static Map<String, Object> hookJob() {
        Map<String, Object> sets = new HashMap<>();
        sets.put("coordinator.job.enabled", true);
        sets.put("coordinator.credentialSecret", "crifresh/ghcr-pull");
        sets.put("coordinator.talosconfig.secretName", "talosconfig");
        return sets;
    }

    @Test
    void offByDefaultButTheCoordinatorsIdentityIsThere() {
        Rendered render = Chart.render();
        assertTrue(render.all("Job").stream()
                .noneMatch(j -> j.path("metadata").path("name").asString().contains("coordinator")));
        assertEquals(1, render.all("ServiceAccount").stream()
                .filter(sa -> sa.path("metadata").path("name").asString().equals("crifresh-coordinator")).count());
    }

    @Test
    void aHookJobRollsOutAfterEveryInstallAndUpgrade() {
        JsonNode job = Chart.render(hookJob()).one("Job", "crifresh-coordinator-rollout");
        JsonNode annotations = job.path("metadata").path("annotations");
        assertEquals("post-install,post-upgrade", annotations.path(Chart.HOOK_KEY).asString());
        assertEquals("before-hook-creation", annotations.path("helm.sh/hook-delete-policy").asString(),
                "the finished Job stays for its log");
        assertEquals(0, job.path("spec").path("backoffLimit").asInt(-1), "a failed rollout is not retried blindly");
        JsonNode pod = job.path("spec").path("template").path("spec");
        JsonNode container = pod.path("containers").get(0);
        assertEquals(List.of(
                "rollout",
                "--trust-bundle=/etc/crifresh/trust",
                "--credential-secret=crifresh/ghcr-pull",
                "--registry=ghcr.io",
                "-o", "text",
                "--namespace=crifresh",
                "--max-unavailable=1",
                "--action=reboot",
                "--reboot-driver=talosctl",
                "--talosconfig=/etc/crifresh/talos/talosconfig"), strings(container.path("args")));
        assertEquals("crifresh-coordinator", pod.path("serviceAccountName").asString());
        assertEquals("Never", pod.path("restartPolicy").asString());
        assertEquals(65532, pod.path("securityContext").path("runAsUser").asInt());
        assertTrue(pod.path("securityContext").path("runAsNonRoot").asBoolean());
        assertEquals(65532, pod.path("securityContext").path("fsGroup").asInt(), "makes the 0440 Secrets readable");
        assertTrue(container.path("securityContext").path("readOnlyRootFilesystem").asBoolean());
        assertFalse(container.path("securityContext").path("allowPrivilegeEscalation").asBoolean(true));

        List<String> mounts = container.path("volumeMounts").values().stream()
                .map(m -> m.path("name").asString() + ":" + m.path("mountPath").asString() + ":" + m.path("readOnly").asBoolean(false))
                .toList();
        assertEquals(List.of("trust-bundle:/etc/crifresh/trust:true", "talosconfig:/etc/crifresh/talos:true", "tmp:/tmp:false"), mounts);
        JsonNode trust = pod.path("volumes").get(0).path("secret");
        assertEquals("crifresh-trust-bundle", trust.path("secretName").asString());
        assertEquals(0440, trust.path("defaultMode").asInt());
    }

    @Test
    void aPlainJobPerRevisionCarriesEveryConfiguredFlag() {
        JsonNode job = Chart.render("non-default.yaml").one("Job", "crifresh-coordinator-rollout-r1");
        assertFalse(job.path("metadata").path("annotations").has(Chart.HOOK_KEY));
        JsonNode pod = job.path("spec").path("template").path("spec");
        assertEquals(List.of(
                "rollout",
                "--trust-bundle=/etc/crifresh/trust",
                "--credential-secret=registry/ghcr-pull",
                "--registry=ghcr.io",
                "--node-selector=node-role.kubernetes.io/worker",
                "-o", "json",
                "--namespace=crifresh",
                "--max-unavailable=25%",
                "--action=reboot",
                "--reboot-driver=talosctl",
                "--talosconfig=/etc/crifresh/talos/talosconfig",
                "--drain-timeout=20m",
                "--lock-timeout=2m",
                "--pushgateway=http://pushgateway.monitoring:9091"), strings(pod.path("containers").get(0).path("args")));
        assertEquals("my-trust", pod.path("volumes").get(0).path("secret").path("secretName").asString());
        assertEquals("node-role.kubernetes.io/control-plane", pod.path("tolerations").get(0).path("key").asString());
    }

    @Test
    void theCommandDriverAndActionNoneAndPlanLeaveOutWhatDoesNotApply() {
        Map<String, Object> command = hookJob();
        command.put("coordinator.talosconfig.secretName", "");
        command.put("coordinator.rebootDriver", "command");
        command.put("coordinator.rebootCommand", "ssh root@{ip} reboot");
        List<String> args = args(Chart.render(command).one("Job", "crifresh-coordinator-rollout"));
        assertTrue(args.contains("--reboot-driver=command"), args.toString());
        assertTrue(args.contains("--reboot-command=ssh root@{ip} reboot"), args.toString());
        assertTrue(args.stream().noneMatch(a -> a.startsWith("--talosconfig")), args.toString());

        Map<String, Object> none = hookJob();
        none.put("coordinator.action", "none");
        args = args(Chart.render(none).one("Job", "crifresh-coordinator-rollout"));
        assertTrue(args.contains("--action=none"), args.toString());
        assertTrue(args.stream().noneMatch(a -> a.startsWith("--reboot-")), args.toString());

        Map<String, Object> plan = hookJob();
        plan.put("coordinator.job.command", "plan");
        args = args(Chart.render(plan).one("Job", "crifresh-coordinator-plan"));
        assertEquals("plan", args.get(0));
        assertTrue(args.stream().noneMatch(a -> a.startsWith("--max-unavailable")
                || a.startsWith("--namespace") || a.startsWith("--pushgateway")), "rollout-only flags: " + args);
        assertTrue(args.contains("--action=reboot"), "plan shows what the rollout's action would do: " + args);

        Map<String, Object> auto = hookJob();
        auto.put("coordinator.action", "auto");
        args = args(Chart.render(auto).one("Job", "crifresh-coordinator-rollout"));
        assertTrue(args.containsAll(List.of("--action=auto", "--reboot-driver=talosctl")),
                "auto reboots the nodes older than Talos 1.14: " + args);
        auto.put("coordinator.talosconfig.secretName", "");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chart.render(auto));
        assertTrue(e.getMessage().contains("the talosctl reboot driver needs coordinator.talosconfig.secretName"), e.getMessage());
    }

    @Test
    void missingInputsForTheJobAreNamed() {
        Map<String, Object> noCredential = hookJob();
        noCredential.remove("coordinator.credentialSecret");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chart.render(noCredential));
        assertTrue(e.getMessage().contains("coordinator.credentialSecret"), e.getMessage());

        Map<String, Object> noTalosconfig = hookJob();
        noTalosconfig.remove("coordinator.talosconfig.secretName");
        e = assertThrows(IllegalStateException.class, () -> Chart.render(noTalosconfig));
        assertTrue(e.getMessage().contains("coordinator.talosconfig.secretName"), e.getMessage());
    }

    @Test
    void forceAndDeleteEmptyDirDataAreOffUnlessSetAndTheJobKnowsWhereItRuns() {
        JsonNode job = Chart.render(hookJob()).one("Job", "crifresh-coordinator-rollout");
        List<String> plain = args(job);
        assertFalse(plain.contains("--force") || plain.contains("--delete-emptydir-data"), plain.toString());
        JsonNode env = job.path("spec").path("template").path("spec").path("containers").get(0).path("env");
        Map<String, String> downward = new java.util.LinkedHashMap<>();
        env.values().forEach(e -> {
            if (e.has("valueFrom")) {
                downward.put(e.path("name").asString(), e.path("valueFrom").path("fieldRef").path("fieldPath").asString());
            }
        });
        assertEquals(Map.of("POD_NAME", "metadata.name", "POD_NAMESPACE", "metadata.namespace", "NODE_NAME", "spec.nodeName"), downward);

        Map<String, Object> both = hookJob();
        both.put("coordinator.force", true);
        both.put("coordinator.deleteEmptyDirData", true);
        List<String> args = args(Chart.render(both).one("Job", "crifresh-coordinator-rollout"));
        assertTrue(args.contains("--force") && args.contains("--delete-emptydir-data"), args.toString());

        Map<String, Object> wrong = hookJob();
        wrong.put("coordinator.force", "yes");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chart.render(wrong));
        assertTrue(e.getMessage().contains("values don't meet the specifications of the schema"), e.getMessage());
    }

    static List<String> args(JsonNode job) {
        return strings(job.path("spec").path("template").path("spec").path("containers").get(0).path("args"));
    }
}
