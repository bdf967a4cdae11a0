package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class KeysTest {

    static final String HOOK_PHASES = "pre-install,pre-upgrade";

    @Test
    void withoutExistingSecretsAHookJobRunsKeysInitBeforeInstallAndUpgrade() {
        Rendered render = Chart.render();
        JsonNode job = render.one("Job", "crifresh-keys-init");
        JsonNode annotations = job.path("metadata").path("annotations");
        assertEquals(HOOK_PHASES, annotations.path(Chart.HOOK_KEY).asString());
        assertEquals("before-hook-creation,hook-succeeded", annotations.path("helm.sh/hook-delete-policy").asString());
        JsonNode pod = job.path("spec").path("template").path("spec");
        JsonNode container = pod.path("containers").get(0);
        assertEquals(List.of("keys", "init", "--namespace=crifresh", "--signing-secret=crifresh-signing-key",
                "--trust-secret-name=crifresh-trust-bundle"), strings(container.path("args")));
        assertEquals("ghcr.io/crifresh/crifresh-coordinator:0.1.0", container.path("image").asString());
        assertEquals("Never", pod.path("restartPolicy").asString());
        assertEquals("crifresh-keys-init", pod.path("serviceAccountName").asString());
        assertTrue(pod.path("securityContext").path("runAsNonRoot").asBoolean());
        assertTrue(container.path("securityContext").path("readOnlyRootFilesystem").asBoolean());
        assertEquals(List.of("ALL"), strings(container.path("securityContext").path("capabilities").path("drop")));
    }

    @Test
    void theHooksIdentityExistsOnlyWhileTheHookRunsAndComesFirst() {
        Rendered render = Chart.render();
        for (String kind : List.of("ServiceAccount", "Role", "RoleBinding", "Job")) {
            JsonNode annotations = render.one(kind, "crifresh-keys-init").path("metadata").path("annotations");
            assertEquals(HOOK_PHASES, annotations.path(Chart.HOOK_KEY).asString(), kind);
            assertTrue(annotations.path("helm.sh/hook-delete-policy").asString().contains("hook-succeeded"), kind);
        }
        int job = weight(render.one("Job", "crifresh-keys-init"));
        assertTrue(weight(render.one("ServiceAccount", "crifresh-keys-init")) < job);
        assertTrue(weight(render.one("Role", "crifresh-keys-init")) < job);
        assertTrue(weight(render.one("RoleBinding", "crifresh-keys-init")) < job);

        JsonNode rules = render.one("Role", "crifresh-keys-init").path("rules");
        assertEquals(List.of("get", "update"), strings(rules.get(0).path("verbs")));
        assertEquals(List.of("crifresh-signing-key", "crifresh-trust-bundle"), strings(rules.get(0).path("resourceNames")));
        assertEquals(List.of("create"), strings(rules.get(1).path("verbs")));
        assertEquals(List.of("secrets"), strings(rules.get(1).path("resources")));
        assertEquals(2, rules.size(), "no delete, and update only on the two named Secrets");
    }

    @Test
    void theHookIsAHookForHelmNotPartOfTheManifest() {
        Rendered manifest = Chart.renderWithoutHooks(Map.of());
        assertEquals(List.of(), manifest.all("Job"), "Helm keeps hook resources out of the release manifest");
        assertTrue(manifest.all("ServiceAccount").stream()
                .noneMatch(sa -> sa.path("metadata").path("name").asString().equals("crifresh-keys-init")));
        assertFalse(manifest.text.contains("keys-init"));
        assertEquals(1, manifest.all("DaemonSet").size(), "the rest renders the same");
    }

    @Test
    void existingSecretsReplaceTheHookAndReachTheMounts() {
        Rendered render = Chart.render("non-default.yaml");
        assertTrue(render.all("Job").stream()
                .noneMatch(j -> j.path("metadata").path("name").asString().contains("keys-init")), render.summary().toString());
        JsonNode volumes = render.one("DaemonSet").path("spec").path("template").path("spec").path("volumes");
        List<String> secrets = volumes.values().stream().filter(v -> v.has("secret"))
                .map(v -> v.path("secret").path("secretName").asString()).toList();
        assertEquals(List.of("my-signing", "my-trust"), secrets);
    }

    @Test
    void halfOfAnExistingKeyPairIsRefused() {
        IllegalStateException signingOnly = assertThrows(IllegalStateException.class,
                () -> Chart.render(Map.of("keys.existingSecret", "mine")));
        assertTrue(signingOnly.getMessage().contains("keys.existingTrustSecret is not"), signingOnly.getMessage());
        IllegalStateException trustOnly = assertThrows(IllegalStateException.class,
                () -> Chart.render(Map.of("keys.existingTrustSecret", "mine")));
        assertTrue(trustOnly.getMessage().contains("keys.existingSecret is not"), trustOnly.getMessage());
    }

    @Test
    void theHookCanBeDisabledForKeysCreatedOutOfBand() {
        Rendered render = Chart.render(Map.of("keys.initJob.enabled", false));
        assertEquals(List.of(), render.all("Job"));
        assertTrue(render.text.contains("secretName: crifresh-signing-key"), "agents still mount the default names");
    }

    private static int weight(JsonNode object) {
        return Integer.parseInt(object.path("metadata").path("annotations").path("helm.sh/hook-weight").asString());
    }
}
