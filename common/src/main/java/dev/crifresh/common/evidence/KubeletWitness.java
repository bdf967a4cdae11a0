package dev.crifresh.common.evidence;

import java.util.List;
import java.util.Locale;

/**
 * Rule 10 ({@link EvidenceRules}' table): the kubelet as a witness that needs no containerd socket (docs/design.md, "The rules"): containerd can bind its
 * socket and serve without its CRI service (its CRI images plugin failed {@code Init}), so the ordering rule says
 * fresh while every pull fails. The kubelet sees that runtime down and writes so into the Ready condition of the
 * agent's own Node. A Ready that is not {@code True} and whose message names the container runtime makes a fresh
 * verdict unknown ({@link Reason#CONTAINER_RUNTIME_NOT_READY}). Pure.
 *
 * <p>The phrases are the kubelet's own (from source only; no kubelet runs here): {@code pkg/kubelet/runtime.go}
 * {@code runtimeErrors} ("container runtime status check may not have completed yet", "container runtime is
 * down") and {@code pkg/kubelet/kubelet.go} {@code updateRuntimeUp} ("container runtime not ready: ...", spelled
 * with a capital C by older kubelets), joined into the message by {@code nodestatus.ReadyCondition}. "container
 * runtime network not ready" is not one of them: the kubelet writes it only after the runtime answered its CRI
 * status call, so the CRI service runs; it concerns the network plugin.
 */
public final class KubeletWitness {
    /** The kubelet's phrases about the container runtime itself, lower case. */
    static final List<String> RUNTIME_PHRASES = List.of("container runtime is down", "container runtime not ready",
            "container runtime status check may not have completed yet");

    private KubeletWitness() {
    }

    /** Whether {@code ready} says the container runtime is down or not ready; false without a reading. */
    public static boolean runtimeNotReady(KubeletReady ready) {
        if (ready == null || "True".equals(ready.status()) || ready.message() == null) {
            return false;
        }
        String message = ready.message().toLowerCase(Locale.ROOT);
        return RUNTIME_PHRASES.stream().anyMatch(message::contains);
    }

    /**
     * A fresh evaluation becomes unknown when the kubelet reports the runtime not ready; stale and unknown keep
     * their reason (they do not say fresh). Without a reading (no Node information) the evaluation is unchanged.
     */
    public static Evaluation apply(Evaluation evaluation, KubeletReady ready) {
        if (evaluation.verdict() != Verdict.FRESH || !runtimeNotReady(ready)) {
            return evaluation;
        }
        String message = "The kubelet reports the container runtime not ready on this Node (Ready "
                + EvidenceRules.oneLine(ready.status() == null ? "without a status" : ready.status())
                + (ready.reason() == null ? "" : ", " + EvidenceRules.oneLine(ready.reason())) + ": "
                + EvidenceRules.oneLine(ready.message()) + "), so pulls may fail whatever the config says (containerd"
                + " may serve without its CRI service); not fresh although " + evaluation.message();
        return new Evaluation(Verdict.UNKNOWN, Reason.CONTAINER_RUNTIME_NOT_READY, Proof.NONE, message,
                evaluation.containerd(), evaluation.containerdStartedAt(), evaluation.configDigest(),
                evaluation.memory());
    }
}
