package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.common.attest.VerificationFailure;
import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.RunLimits;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.FailureReasons;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The installation, not the nodes: when no selected node carries a verifiable attestation of its current boot (the
 * agents never ran, the trust bundle does not match, the agents are outside the version-skew policy), every node is
 * unknown and a rollout would reboot them all. Per node that is right (fail toward rebooting); all of them at once
 * almost always means crifresh is not installed as the coordinator expects, so {@code rollout} stops before the
 * first cordon (exit 6) and {@code plan} reports the same, unless {@value #FLAG} is given.
 * <p>
 * Judged on the selected nodes only ({@code --node-selector}); one node counts like many. A node an earlier run owns
 * (cordoned, rebooting) is being resumed: the run's own state is the evidence, so any such node lifts the stop. Action
 * none reboots nothing and is never stopped.
 *
 * @param nodes  how many selected nodes were judged
 * @param causes how many nodes per likely cause, most common first
 * @param sample one node's detail for the most common cause (it names the versions, the key id)
 */
public record NoAttestations(int nodes, Map<String, Integer> causes, String sample) {
    public static final String FLAG = "--allow-no-attestations";

    /** The stop of a run with these settings: {@link #judge}, unless {@code --allow-no-attestations}. */
    public static Optional<NoAttestations> unlessAllowed(RunLimits limits, Collection<Classification> selected) {
        return limits.allowNoAttestations() ? Optional.empty() : judge(limits.action(), selected);
    }

    /** The stop, or empty when some node attests its boot, an earlier run's node is resumed, or nothing reboots. */
    public static Optional<NoAttestations> judge(Action action, Collection<Classification> selected) {
        if (action == Action.NONE || selected.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Integer> causes = new LinkedHashMap<>();
        Map<String, String> samples = new LinkedHashMap<>();
        for (Classification c : selected) {
            if (c.claims() != null || Decisions.leftover(c.node()) != null) {
                return Optional.empty();
            }
            String cause = cause(c.reason());
            causes.merge(cause, 1, Integer::sum);
            samples.putIfAbsent(cause, c.name() + ": " + c.detail());
        }
        Map<String, Integer> sorted = new LinkedHashMap<>();
        causes.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        String top = sorted.keySet().iterator().next();
        return Optional.of(new NoAttestations(selected.size(), sorted, samples.get(top)));
    }

    /** The likely cause behind a node's reason code, as the message names it. */
    static String cause(String reason) {
        if (FailureReasons.of(VerificationFailure.MISSING).equals(reason)) {
            return "no ContainerdConfigFresh condition (the agent DaemonSet is not running there)";
        }
        if (FailureReasons.of(VerificationFailure.UNTRUSTED_KEY).equals(reason)
                || FailureReasons.of(VerificationFailure.BAD_SIGNATURE).equals(reason)) {
            return "signed by a key not in the trust bundle (the coordinator's trust bundle does not match the agents' key)";
        }
        if (FailureReasons.of(VerificationFailure.UNSUPPORTED_VERSION).equals(reason)) {
            return "an unsupported claims version (agents and coordinator outside the version-skew policy)";
        }
        return "other: " + reason;
    }

    /** One paragraph: what was found, per cause, the likely cause, and the flag that proceeds anyway. */
    public String message() {
        StringBuilder sb = new StringBuilder("no selected node carries a verifiable attestation of its current boot (")
                .append(nodes).append(nodes == 1 ? " node" : " nodes").append("): ");
        String sep = "";
        for (Map.Entry<String, Integer> e : causes.entrySet()) {
            sb.append(sep).append(e.getValue()).append(" with ").append(e.getKey());
            sep = ", ";
        }
        return sb.append(" — e.g. ").append(sample)
                .append(". The installation, not the nodes, is the likely cause (docs/install.md); no node was touched."
                        + " To reboot every selected node anyway, as without crifresh, pass ").append(FLAG).toString();
    }
}
