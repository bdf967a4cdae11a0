package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class RbacTest {

    @Test
    void noRoleAnywhereUsesAWildcard() {
        List<JsonNode> roles = new ArrayList<>();
        for (Rendered render : List.of(Chart.render(), Chart.render("non-default.yaml"),
                Chart.render(Map.of("coordinator.job.enabled", true, "coordinator.credentialSecret", "crifresh/pull",
                        "coordinator.talosconfig.secretName", "tc")))) {
            roles.addAll(render.all("ClusterRole"));
            roles.addAll(render.all("Role"));
        }
        assertTrue(roles.size() >= 10, "roles from three renders: " + roles.size());
        for (JsonNode role : roles) {
            String name = role.path("kind").asString() + "/" + role.path("metadata").path("name").asString();
            assertFalse(role.has("aggregationRule"), name);
            for (JsonNode rule : role.path("rules").values()) {
                for (String field : List.of("apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs")) {
                    for (String value : strings(rule.path(field))) {
                        assertFalse(value.contains("*"), name + " " + field + " has a wildcard: " + value);
                    }
                }
                assertFalse(strings(rule.path("verbs")).isEmpty(), name);
            }
        }
    }

    @Test
    void theAgentMayReadNodesAndPatchNodeStatusOnly() {
        Rendered render = Chart.render();
        JsonNode role = render.one("ClusterRole", "crifresh-agent");
        assertEquals(List.of(
                rule(List.of(""), List.of("nodes"), List.of("get", "list", "watch")),
                rule(List.of(""), List.of("nodes/status"), List.of("patch"))), rules(role));
        JsonNode binding = render.one("ClusterRoleBinding", "crifresh-agent");
        assertEquals("crifresh-agent", binding.path("roleRef").path("name").asString());
        assertEquals("ServiceAccount", binding.path("subjects").get(0).path("kind").asString());
        assertEquals("crifresh-agent", binding.path("subjects").get(0).path("name").asString());
        assertEquals("crifresh", binding.path("subjects").get(0).path("namespace").asString());
        assertEquals(List.of("crifresh-agent-expiry"), render.all("Role").stream()
                .map(r -> r.path("metadata").path("name").asString()).filter(n -> n.contains("agent")).toList(),
                "the agent's only namespaced permission is its expiry Lease: its keys are mounted");
    }

    @Test
    void theAgentsHoldOneExpiryLeaseInTheReleaseNamespaceAndNoneWhenExpiryIsOff() {
        Rendered render = Chart.render();
        JsonNode role = render.one("Role", "crifresh-agent-expiry");
        assertEquals("crifresh", role.path("metadata").path("namespace").asString());
        assertEquals(List.of(
                rule(List.of("coordination.k8s.io"), List.of("leases"), List.of("create")),
                rule(List.of("coordination.k8s.io"), List.of("leases"), List.of("get", "patch"), List.of("crifresh-agent-expiry"))),
                rules(role));
        JsonNode binding = render.one("RoleBinding", "crifresh-agent-expiry");
        assertEquals("crifresh-agent-expiry", binding.path("roleRef").path("name").asString());
        assertEquals("crifresh-agent", binding.path("subjects").get(0).path("name").asString());
        assertEquals("crifresh", binding.path("subjects").get(0).path("namespace").asString());
        Rendered off = Chart.render(Map.<String, Object>of("agent.expiry.enabled", false));
        assertTrue(off.all("Role").stream().noneMatch(r -> r.path("metadata").path("name").asString().contains("agent")));
        assertTrue(off.all("RoleBinding").stream().noneMatch(r -> r.path("metadata").path("name").asString().contains("agent")));
    }

    @Test
    void theCoordinatorMayDrainAndAnnotateNodesAndHoldItsLease() {
        Rendered render = Chart.render();
        assertEquals(List.of(
                rule(List.of(""), List.of("nodes"), List.of("get", "list", "watch", "patch")),
                rule(List.of(""), List.of("pods"), List.of("get", "list", "watch")),
                rule(List.of(""), List.of("pods/eviction"), List.of("create"))),
                rules(render.one("ClusterRole", "crifresh-coordinator")));
        JsonNode role = render.one("Role", "crifresh-coordinator");
        assertEquals("crifresh", role.path("metadata").path("namespace").asString());
        assertEquals(List.of(
                rule(List.of("coordination.k8s.io"), List.of("leases"), List.of("get", "update"), List.of("crifresh-rollout")),
                rule(List.of("coordination.k8s.io"), List.of("leases"), List.of("create")),
                rule(List.of(""), List.of("secrets"), List.of("get"), List.of("crifresh-trust-bundle"))), rules(role));
        assertEquals("crifresh-coordinator",
                render.one("RoleBinding", "crifresh-coordinator").path("subjects").get(0).path("name").asString());
    }

    @Test
    void theCoordinatorMayCreateNodeEventsInDefaultOnly() {
        Rendered render = Chart.render();
        JsonNode role = render.one("Role", "crifresh-coordinator-events");
        assertEquals("default", role.path("metadata").path("namespace").asString(),
                "the API server accepts Events about Nodes only in namespace default");
        assertEquals(List.of(rule(List.of(""), List.of("events"), List.of("create"))), rules(role));
        JsonNode binding = render.one("RoleBinding", "crifresh-coordinator-events");
        assertEquals("default", binding.path("metadata").path("namespace").asString());
        assertEquals("crifresh-coordinator-events", binding.path("roleRef").path("name").asString());
        assertEquals("crifresh-coordinator", binding.path("subjects").get(0).path("name").asString());
        assertEquals("crifresh", binding.path("subjects").get(0).path("namespace").asString());
    }

    @Test
    void theCoordinatorReadsExactlyTheNamedCredentialSecretInItsNamespace() {
        Rendered render = Chart.render("non-default.yaml");
        JsonNode role = render.one("Role", "crifresh-coordinator-credential");
        assertEquals("registry", role.path("metadata").path("namespace").asString());
        assertEquals(List.of(rule(List.of(""), List.of("secrets"), List.of("get"), List.of("ghcr-pull"))), rules(role));
        JsonNode binding = render.one("RoleBinding", "crifresh-coordinator-credential");
        assertEquals("registry", binding.path("metadata").path("namespace").asString());
        assertEquals("crifresh", binding.path("subjects").get(0).path("namespace").asString());
        assertEquals(List.of(rule(List.of(""), List.of("secrets"), List.of("get"), List.of("my-trust"))),
                rules(render.one("Role", "crifresh-coordinator")).subList(2, 3),
                "the trust Secret it may read is the existing one");
    }

    @Test
    void thePullProofMayManagePodsInItsProbeNamespaceOnlyAndOnlyWhenOn() {
        assertTrue(Chart.render().all("Role").stream()
                .noneMatch(r -> r.path("metadata").path("name").asString().endsWith("-pull-proof")), "off by default");
        Rendered render = Chart.render(Map.of("coordinator.gates.pullProof.mode", "rebooted",
                "coordinator.gates.pullProof.image", "ghcr.io/example/probe:1", "coordinator.gates.pullProof.namespace", "probes"));
        JsonNode role = render.one("Role", "crifresh-coordinator-pull-proof");
        assertEquals("probes", role.path("metadata").path("namespace").asString());
        assertEquals(List.of(rule(List.of(""), List.of("pods"), List.of("create", "delete", "get", "watch"))), rules(role));
        JsonNode binding = render.one("RoleBinding", "crifresh-coordinator-pull-proof");
        assertEquals("probes", binding.path("metadata").path("namespace").asString());
        assertEquals("crifresh-coordinator", binding.path("subjects").get(0).path("name").asString());
        assertEquals("crifresh", binding.path("subjects").get(0).path("namespace").asString());
    }

    @Test
    void rbacCanBeLeftToTheOperator() {
        Rendered render = Chart.render(Map.of("rbac.create", false));
        assertEquals(List.of(), render.all("ClusterRole"));
        assertEquals(List.of(), render.all("Role"));
        assertEquals(List.of(), render.all("ClusterRoleBinding"));
        assertEquals(List.of(), render.all("RoleBinding"));
    }

    static List<Object> rule(List<String> groups, List<String> resources, List<String> verbs) {
        return List.of(groups, resources, verbs, List.of());
    }

    static List<Object> rule(List<String> groups, List<String> resources, List<String> verbs, List<String> names) {
        return List.of(groups, resources, verbs, names);
    }

    static List<List<Object>> rules(JsonNode role) {
        List<List<Object>> out = new ArrayList<>();
        for (JsonNode rule : role.path("rules").values()) {
            out.add(List.of(strings(rule.path("apiGroups")), strings(rule.path("resources")),
                    strings(rule.path("verbs")), strings(rule.path("resourceNames"))));
        }
        return out;
    }
}
