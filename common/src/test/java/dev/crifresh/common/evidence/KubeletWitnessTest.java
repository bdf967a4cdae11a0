package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The kubelet's Ready condition on the own Node as a witness of a container runtime that does not serve. */
class KubeletWitnessTest {
    /** The reasons only this rule gives (EvidenceRulesTest checks that every reason is exercised). */
    static final Set<Reason> REASONS = Set.of(Reason.CONTAINER_RUNTIME_NOT_READY);

    private static Evaluation of(Reason reason) {
        return new Evaluation(reason.verdict(), reason, reason.verdict() == Verdict.FRESH ? Proof.ORDERING : Proof.NONE,
                "containerd (pid 100) started 5 s after the newest config change", null, Instant.EPOCH, "digest", null);
    }

    private static KubeletReady notReady(String message) {
        return new KubeletReady("False", "KubeletNotReady", message);
    }

    /** The kubelet's messages (setters.go ReadyCondition joins runtime, network and storage errors). */
    static Stream<Arguments> readings() {
        return Stream.of(
                Arguments.of("no Node information", null, false),
                Arguments.of("Ready", new KubeletReady("True", "KubeletReady", "kubelet is posting ready status"), false),
                Arguments.of("Ready, even if its message names the runtime",
                        new KubeletReady("True", "KubeletReady", "container runtime is down"), false),
                Arguments.of("runtime down", notReady("container runtime is down"), true),
                Arguments.of("runtime not ready (CRI status condition)", notReady("container runtime not ready: "
                        + "RuntimeReady=false reason:ContainerdNotReady message:CRI plugin not started"), true),
                Arguments.of("older kubelets' capital C", notReady("Container runtime not ready: RuntimeReady=false"), true),
                Arguments.of("first status check pending", notReady(
                        "container runtime status check may not have completed yet"), true),
                Arguments.of("aggregated with the network", notReady("[container runtime is down, container runtime "
                        + "network not ready: NetworkReady=false reason:NetworkPluginNotReady]"), true),
                Arguments.of("Unknown from the kubelet's own status", new KubeletReady("Unknown", null,
                        "container runtime is down"), true),
                Arguments.of("no status field", new KubeletReady(null, null, "container runtime is down"), true),
                Arguments.of("network only: the CRI service answered", notReady("container runtime network not ready: "
                        + "NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized"), false),
                Arguments.of("kubelet stopped posting (node lifecycle controller)", new KubeletReady("Unknown",
                        "NodeStatusUnknown", "Kubelet stopped posting node status."), false),
                Arguments.of("not ready without a message", new KubeletReady("False", "KubeletNotReady", null), false),
                Arguments.of("PLEG", notReady("PLEG is not healthy: pleg was last seen active 3m0s ago"), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readings")
    void aFreshVerdictIsUnknownExactlyWhenTheKubeletSaysTheRuntimeIsNotReady(String name, KubeletReady ready,
            boolean witnesses) {
        assertEquals(witnesses, KubeletWitness.runtimeNotReady(ready));
        for (Reason freshReason : new Reason[] {Reason.CONTAINERD_STARTED_AFTER_CONFIG,
                Reason.CONFIG_UNCHANGED_SINCE_LOAD, Reason.RUNTIME_STATUS_MATCHES_CONFIG}) {
            Evaluation fresh = of(freshReason);
            Evaluation e = KubeletWitness.apply(fresh, ready);
            if (!witnesses) {
                assertSame(fresh, e);
                continue;
            }
            assertEquals(Verdict.UNKNOWN, e.verdict());
            assertEquals(Reason.CONTAINER_RUNTIME_NOT_READY, e.reason());
            assertEquals(Proof.NONE, e.proof());
            assertEquals("digest", e.configDigest());
            assertTrue(e.message().startsWith("The kubelet reports the container runtime not ready")
                    && e.message().contains(ready.message().substring(0, 20)), e.message());
            assertTrue(!e.message().contains("\n"), e.message());
        }
        for (Reason other : new Reason[] {Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, Reason.CONTAINERD_REFUSES_CONFIG,
                Reason.CONFIG_UNREADABLE, Reason.CONTAINERD_NOT_SERVING}) {
            Evaluation notFresh = of(other);
            assertSame(notFresh, KubeletWitness.apply(notFresh, ready), "stale and unknown keep their reason");
        }
    }
}
