package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.coordinator.rollout.plan.ApiAway;
import dev.crifresh.coordinator.rollout.plan.NoAttestations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** RunPreflight's decisions, table-driven and without I/O: the whole-cluster stop, the API-server rule, the release guard. */
class RunPreflightTest {
    private static final List<Classification> NONE_ATTESTED = List.of(new Classification(
            new NodeFacts("w1", "uid-w1", "1", Role.WORKER, "boot", true, false, List.of(), Map.of(), null, null, NodeFacts.ReadyTimes.NONE,
                    List.of()),
            NodeVerdict.UNKNOWN, "AttestationMissing", "there is no attestation", false, null));

    static Stream<Arguments> stops() {
        CoordinatorSettings d = CoordinatorSettings.defaults();
        return Stream.of(
                Arguments.of("defaults: stop", d, true),
                Arguments.of("--allow-no-attestations: go on", d.toBuilder().allowNoAttestations(true).build(), false),
                Arguments.of("--action none: nothing reboots", d.toBuilder().action(Action.NONE).build(), false),
                Arguments.of("--action auto: may reboot", d.toBuilder().action(Action.AUTO).build(), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stops")
    void theWholeClusterStop(String name, CoordinatorSettings settings, boolean stops) {
        assertEquals(stops, NoAttestations.unlessAllowed(settings.limits(), NONE_ATTESTED).isPresent(), name);
    }

    static Stream<Arguments> apiAway() {
        Map<String, String> away = Map.of("cp1", "it is the cluster's only control plane");
        return Stream.of(
                Arguments.of("no reboot takes the API away", Map.of(), Duration.ZERO, Map.of(), Map.of()),
                Arguments.of("no budget: refused", away, Duration.ZERO,
                        Map.of("cp1", ApiAway.refusal("it is the cluster's only control plane")), Map.of()),
                Arguments.of("a budget: allowed", away, Duration.ofMinutes(5), Map.of(),
                        Map.of("cp1", ApiAway.allowed("it is the cluster's only control plane", Duration.ofMinutes(5)))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("apiAway")
    void theApiServerRule(String name, Map<String, String> away, Duration budget, Map<String, String> refused,
                          Map<String, String> allowed) {
        RunPreflight.ApiAwayRuling ruling = RunPreflight.apiAway(away, budget);
        assertEquals(refused, ruling.refused(), name);
        assertEquals(allowed, ruling.allowed(), name);
    }

    private static Node node(String owner, boolean cordonedByUs, boolean unschedulable) {
        Map<String, String> annotations = new HashMap<>();
        if (owner != null) {
            annotations.put(CrifreshAnnotations.ROLLOUT, owner);
        }
        if (cordonedByUs) {
            annotations.put(CrifreshAnnotations.CORDONED, "true");
        }
        return new NodeBuilder().withNewMetadata().withName("w1").withUid("uid-w1").withAnnotations(annotations).endMetadata()
                .withNewSpec().withUnschedulable(unschedulable).endSpec().build();
    }

    static Stream<Arguments> releases() {
        return Stream.of(
                Arguments.of("the node is gone", null, GuardedPatch.Skip.class, null),
                Arguments.of("no longer owned", node(null, false, false), GuardedPatch.Skip.class, null),
                Arguments.of("owned by another run now", node("run-b/draining", true, true), GuardedPatch.Refuse.class,
                        "w1 is now owned by 'run-b/draining'"),
                Arguments.of("ours, cordoned by us: uncordon", node("run-a/draining", true, true), GuardedPatch.Patch.class,
                        "/spec/unschedulable"),
                Arguments.of("ours, cordoned by someone else: stays cordoned", node("run-a/draining", false, true),
                        GuardedPatch.Patch.class, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void theReleaseGuard(String name, Node now, Class<?> expected, String contains) {
        GuardedPatch.Step step = RunPreflight.releasing("w1", "run-a/draining", now);
        assertInstanceOf(expected, step, name);
        if (step instanceof GuardedPatch.Refuse r) {
            assertEquals(contains, r.why());
        }
        if (step instanceof GuardedPatch.Patch p) {
            assertEquals(contains != null, p.json().contains("\"remove\",\"path\":\"/spec/unschedulable\"")
                    || p.json().contains("\"op\":\"remove\",\"path\":\"/spec/unschedulable\""), name + ": " + p.json());
            assertTrue(p.json().contains(CrifreshAnnotations.ROLLOUT.replace("/", "~1")), p.json());
        }
    }

    @Test
    void aStopIsJudgedOnTheFirstClassification() {
        assertEquals(1, NoAttestations.unlessAllowed(CoordinatorSettings.defaults().limits(), NONE_ATTESTED).orElseThrow().nodes());
    }
}
