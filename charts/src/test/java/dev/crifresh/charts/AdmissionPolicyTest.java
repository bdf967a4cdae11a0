package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class AdmissionPolicyTest {

    @Test
    void matchesStatusUpdatesOfNodesByTheAgentsServiceAccountOnly() {
        JsonNode spec = Chart.render().one("ValidatingAdmissionPolicy", "crifresh-agent-node-status").path("spec");
        assertEquals("Fail", spec.path("failurePolicy").asString(), "an error in the policy must deny, not allow");
        JsonNode rules = spec.path("matchConstraints").path("resourceRules");
        assertEquals(1, rules.size());
        assertEquals(List.of(""), strings(rules.get(0).path("apiGroups")));
        assertEquals(List.of("nodes/status"), strings(rules.get(0).path("resources")));
        assertEquals(List.of("UPDATE"), strings(rules.get(0).path("operations")), "a PATCH is admitted as an UPDATE");
        JsonNode conditions = spec.path("matchConditions");
        assertEquals(1, conditions.size());
        assertEquals("request.userInfo.username == 'system:serviceaccount:crifresh:crifresh-agent'",
                conditions.get(0).path("expression").asString());
    }

    @Test
    void validatesTheNodeNameClaimAndLeavesOtherConditionsUntouched() {
        JsonNode spec = Chart.render().one("ValidatingAdmissionPolicy", "crifresh-agent-node-status").path("spec");
        String cel = celOf(spec);
        assertTrue(cel.contains("request.userInfo.?extra[?'authentication.kubernetes.io/node-name'].orValue([])"), cel);
        assertTrue(cel.contains("object.metadata.name == variables.nodeNameClaim[0]"), cel);
        assertTrue(cel.contains("size(variables.nodeNameClaim) == 1"), "a token without the claim is refused: " + cel);
        assertTrue(cel.contains("filter(c, c.type != 'ContainerdConfigFresh')"), cel);
        assertTrue(cel.contains("has(oldObject.status) && has(oldObject.status.conditions)"), cel);
        assertTrue(cel.contains("variables.otherConditionsAfter == variables.otherConditionsBefore"), cel);
        assertEquals(4, spec.path("validations").size());
        for (JsonNode validation : spec.path("validations").values()) {
            assertTrue(validation.path("message").asString().startsWith("the crifresh agent"), validation.toString());
        }
    }

    @Test
    void theBindingEnforcesThePolicyAndFollowsARenamedServiceAccount() {
        Rendered render = Chart.render(Map.of("serviceAccount.agent.name", "node-attester"));
        JsonNode binding = render.one("ValidatingAdmissionPolicyBinding", "crifresh-agent-node-status").path("spec");
        assertEquals("crifresh-agent-node-status", binding.path("policyName").asString());
        assertEquals(List.of("Deny"), strings(binding.path("validationActions")));
        JsonNode spec = render.one("ValidatingAdmissionPolicy").path("spec");
        assertEquals("request.userInfo.username == 'system:serviceaccount:crifresh:node-attester'",
                spec.path("matchConditions").get(0).path("expression").asString());
        assertEquals("node-attester", render.one("DaemonSet").path("spec").path("template").path("spec")
                .path("serviceAccountName").asString());
    }

    @Test
    void canBeTurnedOff() {
        Rendered render = Chart.render("non-default.yaml");
        assertEquals(List.of(), render.all("ValidatingAdmissionPolicy"));
        assertEquals(List.of(), render.all("ValidatingAdmissionPolicyBinding"));
    }

    private static String celOf(JsonNode spec) {
        return List.of("matchConditions", "variables", "validations").stream()
                .flatMap(f -> spec.path(f).values().stream())
                .map(n -> n.path("expression").asString())
                .collect(Collectors.joining("\n"));
    }
}
