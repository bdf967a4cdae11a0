package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The optional NetworkPolicy: agent → API server out, Prometheus → the metrics port in, nothing else. */
class NetworkPolicyTest {

    @Test
    void offByDefault() {
        assertTrue(Chart.render().all("NetworkPolicy").isEmpty());
    }

    @Test
    void theAgentReachesOnlyTheApiServerAndOnlyPrometheusReachesTheAgent() {
        Rendered render = Chart.render(Map.of("networkPolicy.enabled", true));
        JsonNode policy = render.one("NetworkPolicy", "crifresh-agent");
        JsonNode spec = policy.path("spec");
        // it selects exactly the DaemonSet's pods
        assertEquals(render.one("DaemonSet").path("spec").path("selector").path("matchLabels"),
                spec.path("podSelector").path("matchLabels"));
        assertEquals(List.of("Ingress", "Egress"), Rendered.strings(spec.path("policyTypes")));

        assertEquals(1, spec.path("ingress").size());
        JsonNode in = spec.path("ingress").get(0);
        assertEquals(9402, in.path("ports").get(0).path("port").asInt());
        assertEquals("prometheus", in.path("from").get(0).path("podSelector").path("matchLabels")
                .path("app.kubernetes.io/name").asString());
        assertTrue(in.path("from").get(0).has("namespaceSelector"), "any namespace by default: " + in);

        assertEquals(1, spec.path("egress").size());
        JsonNode out = spec.path("egress").get(0);
        assertEquals(List.of(6443, 443), ports(out));
        assertEquals(List.of("0.0.0.0/0", "::/0"), cidrs(out));
    }

    @Test
    void theApiServersAddressesPortsAndPrometheusFollowTheValues() {
        JsonNode spec = Chart.render(Map.of("agent.metricsPort", 9500), "networkpolicy.yaml")
                .one("NetworkPolicy", "crifresh-agent").path("spec");
        JsonNode out = spec.path("egress").get(0);
        assertEquals(List.of("10.0.0.0/24"), cidrs(out));
        assertEquals(List.of(6443), ports(out));
        JsonNode in = spec.path("ingress").get(0);
        assertEquals(9500, in.path("ports").get(0).path("port").asInt());
        assertEquals("monitoring", in.path("from").get(0).path("namespaceSelector").path("matchLabels")
                .path("kubernetes.io/metadata.name").asString());
    }

    @Test
    void extraRulesAreAppended() {
        JsonNode spec = Chart.render(Map.of("networkPolicy.enabled", true,
                "networkPolicy.extraEgress[0].ports[0].port", 53, "networkPolicy.extraEgress[0].ports[0].protocol", "UDP"))
                .one("NetworkPolicy", "crifresh-agent").path("spec");
        assertEquals(2, spec.path("egress").size());
        assertEquals(53, spec.path("egress").get(1).path("ports").get(0).path("port").asInt());
    }

    private static List<Integer> ports(JsonNode rule) {
        List<Integer> ports = new ArrayList<>();
        for (JsonNode p : rule.path("ports").values()) {
            ports.add(p.path("port").asInt());
        }
        return ports;
    }

    private static List<String> cidrs(JsonNode rule) {
        List<String> cidrs = new ArrayList<>();
        for (JsonNode t : rule.path("to").values()) {
            cidrs.add(t.path("ipBlock").path("cidr").asString());
        }
        return cidrs;
    }
}
