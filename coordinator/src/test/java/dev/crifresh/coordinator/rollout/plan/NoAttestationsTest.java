package dev.crifresh.coordinator.rollout.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The whole-cluster stop, table-driven: which sets of selected nodes stop a run, and what the message counts. */
class NoAttestationsTest {
    private static final String MISSING = "no ContainerdConfigFresh condition (the agent DaemonSet is not running there)";
    private static final String UNTRUSTED = "signed by a key not in the trust bundle (the coordinator's trust bundle does not match the agents' key)";
    private static final String VERSION = "an unsupported claims version (agents and coordinator outside the version-skew policy)";
    private static final AttestationClaims CLAIMS = new AttestationClaims(1, AttestationClaims.ISSUER, "n", "uid", "boot",
            Instant.EPOCH, Instant.EPOCH.plusSeconds(60), Verdict.STALE, "ConfigChangedAfterContainerdStart", null, null, null,
            Map.of(), 0, "test");

    private static NodeFacts facts(String name, Map<String, String> annotations) {
        return new NodeFacts(name, "uid-" + name, "1", Role.WORKER, "boot", true, false, List.of(), annotations, null, null, NodeFacts.ReadyTimes.NONE,
                List.of());
    }

    private static Classification unknown(String name, String reason) {
        return new Classification(facts(name, Map.of()), NodeVerdict.UNKNOWN, reason, "detail of " + name, false, null);
    }

    private static Classification attested(String name, NodeVerdict verdict) {
        return new Classification(facts(name, Map.of()), verdict, "Agent", "attested", false, CLAIMS);
    }

    private static Classification owned(String name, String phase) {
        return new Classification(facts(name, Map.of(CrifreshAnnotations.ROLLOUT, "run-old/" + phase)), NodeVerdict.UNKNOWN,
                "AttestationMissing", "rebooting", false, null);
    }

    static Stream<Arguments> table() {
        return Stream.of(
                Arguments.of("first install: no node has the condition", Action.REBOOT,
                        List.of(unknown("a", "AttestationMissing"), unknown("b", "AttestationMissing")), Map.of(MISSING, 2)),
                Arguments.of("a single-node cluster without its agent", Action.REBOOT,
                        List.of(unknown("only", "AttestationMissing")), Map.of(MISSING, 1)),
                Arguments.of("trust bundle does not match, counted per cause", Action.AUTO,
                        List.of(unknown("a", "AttestationUntrustedKey"), unknown("b", "AttestationBadSignature"),
                                unknown("c", "AttestationUnsupportedVersion")), Map.of(UNTRUSTED, 2, VERSION, 1)),
                Arguments.of("expired everywhere (agents stopped long ago)", Action.REBOOT,
                        List.of(unknown("a", "AttestationExpired"), unknown("b", "AttestationMissing")),
                        Map.of("other: AttestationExpired", 1, MISSING, 1)),
                Arguments.of("one node attests stale: the nodes, not the installation", Action.REBOOT,
                        List.of(unknown("a", "AttestationMissing"), attested("b", NodeVerdict.STALE)), null),
                Arguments.of("one node attests unknown: its agent runs and is trusted", Action.REBOOT,
                        List.of(unknown("a", "AttestationMissing"), attested("b", NodeVerdict.UNKNOWN)), null),
                Arguments.of("config pending is attested", Action.REBOOT,
                        List.of(unknown("a", "AttestationMissing"), attested("b", NodeVerdict.CONFIG_PENDING)), null),
                Arguments.of("a resumed run owns a node", Action.REBOOT,
                        List.of(unknown("a", "AttestationMissing"), owned("b", "rebooting")), null),
                Arguments.of("an earlier run cordoned a node (draining)", Action.REBOOT,
                        List.of(unknown("a", "AttestationMissing"), owned("b", "draining")), null),
                Arguments.of("action none reboots nothing", Action.NONE, List.of(unknown("a", "AttestationMissing")), null),
                Arguments.of("no node selected", Action.REBOOT, List.of(), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void judge(String name, Action action, List<Classification> selected, Map<String, Integer> causes) {
        Optional<NoAttestations> found = NoAttestations.judge(action, selected);
        assertEquals(causes == null, found.isEmpty(), name);
        if (causes != null) {
            assertEquals(causes, found.get().causes());
            assertEquals(selected.size(), found.get().nodes());
        }
    }

    @Test
    void causesAreMostCommonFirstAndTheMessageNamesThemAndTheFlag() {
        List<Classification> nodes = new ArrayList<>(List.of(unknown("a", "AttestationUnsupportedVersion"),
                unknown("b", "AttestationMissing"), unknown("c", "AttestationMissing")));
        NoAttestations found = NoAttestations.judge(Action.REBOOT, nodes).orElseThrow();
        Map<String, Integer> expected = new LinkedHashMap<>();
        expected.put(MISSING, 2);
        expected.put(VERSION, 1);
        assertEquals(List.copyOf(expected.entrySet()), List.copyOf(found.causes().entrySet()));
        assertEquals("no selected node carries a verifiable attestation of its current boot (3 nodes): 2 with " + MISSING
                + ", 1 with " + VERSION + " — e.g. b: detail of b. The installation, not the nodes, is the likely cause"
                + " (docs/install.md); no node was touched. To reboot every selected node anyway, as without crifresh, pass"
                + " --allow-no-attestations", found.message());
        assertTrue(NoAttestations.judge(Action.REBOOT, List.of(unknown("x", "AttestationMissing"))).orElseThrow().message()
                .contains("(1 node)"));
    }
}
