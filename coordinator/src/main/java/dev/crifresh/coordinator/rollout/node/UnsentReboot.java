package dev.crifresh.coordinator.rollout.node;

import dev.crifresh.common.attest.VerificationFailure;
import dev.crifresh.common.text.DurationText;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.FailureReasons;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.kube.CrifreshAnnotations;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether the reboot an earlier run recorded (phase rebooting) was never carried out, judged on the node as this run
 * sees it (pure; the argument is docs/design.md, "A recorded reboot that was never carried out"). It was not, when:
 * <ol>
 *   <li>the node reports the boot id recorded before the reboot (boot ids never repeat);</li>
 *   <li>the record carries its time ({@code crifresh.dev/recorded-at});</li>
 *   <li>the node is Ready, and has been since before the record (less the clock allowance): no NotReady episode;</li>
 *   <li>the kubelet's heartbeat advanced while this run watched (a {@code lastHeartbeatTime} other than the one seen
 *       when it started the node), and is later than the record by the quiet time plus the clock allowance: the same
 *       boot alive after every request the earlier run could still have sent;</li>
 *   <li>its agent's verified attestation, where there is one, names that boot too.</li>
 * </ol>
 * Anything unreadable or contradicted is {@link Unproven}, with the fact in words: the node keeps being waited for
 * and, at {@code --reboot-timeout}, fails with that fact for a human to check.
 */
final class UnsentReboot {
    sealed interface Judgement permits NotCarriedOut, Unproven {
    }

    /**
     * What the judgement allows for: {@code quiet}, how much later than the record the heartbeat must be (the Lease
     * duration: every request of the earlier run was sent before this run took the Lease); {@code skew}, clocks that
     * disagree (the recording run's and the kubelet's).
     */
    record Allowance(Duration quiet, Duration skew) {
        /** The CLI's defaults: a 30 s Lease, the attestation verifier's 60 s. */
        static final Allowance DEFAULT = new Allowance(Duration.ofSeconds(30), Duration.ofSeconds(60));
    }

    /** The reboot was never carried out; {@code why}: what the record and the report say. */
    record NotCarriedOut(String why) implements Judgement {
    }

    /** Not proven (yet); {@code missing}: the fact that failed, in words. */
    record Unproven(String missing) implements Judgement {
    }

    private UnsentReboot() {
    }

    /**
     * @param earlierRun the run whose record this is
     * @param started    the node when this run started it (its heartbeat then)
     * @param now        the node now, classified (its verified attestation, if any)
     * @param classified how the node classifies now (its verified attestation), or null
     */
    static Judgement judge(String earlierRun, NodeFacts started, NodeFacts now, Classification classified, Allowance allowance) {
        Duration skew = allowance.skew();
        String recorded = now.annotation(CrifreshAnnotations.BOOT_ID);
        if (recorded == null || now.bootId() == null || !recorded.equals(now.bootId())) {
            return new Unproven(now.bootId() == null ? "it reports no boot id" : "its boot id is not the recorded one");
        }
        Instant at = NodeFacts.ReadyTimes.time(now.annotation(CrifreshAnnotations.RECORDED_AT));
        if (at == null) {
            return new Unproven("the record carries no readable " + CrifreshAnnotations.RECORDED_AT
                    + ", so whether it stayed up since cannot be told");
        }
        Instant since = now.kubelet().since();
        if (!now.ready()) {
            return new Unproven("it is not Ready" + (since == null ? "" : " (since " + since + ")") + " and still reports the boot id"
                    + " recorded before the reboot (" + recorded + ")");
        }
        if (since == null) {
            return new Unproven("its Ready condition has no readable lastTransitionTime");
        }
        if (since.isAfter(at.minus(skew))) {
            return new Unproven("it has been Ready only since " + since + ", not since before the record at " + at
                    + " (less " + DurationText.format(skew) + " for the clocks): it went NotReady in between and came back with the"
                    + " same boot id, so whether a reboot is still under way cannot be told");
        }
        Instant beat = now.kubelet().heartbeat();
        if (beat == null) {
            return new Unproven("its Ready condition has no readable lastHeartbeatTime");
        }
        if (started == null || beat.equals(started.kubelet().heartbeat())) {
            return new Unproven("no kubelet heartbeat since this run started watching it (last " + beat + ")");
        }
        Duration after = allowance.quiet().plus(skew);
        if (beat.isBefore(at.plus(after))) {
            return new Unproven("its last kubelet heartbeat (" + beat + ") is less than " + DurationText.format(after)
                    + " after the record at " + at);
        }
        String agent = "";
        if (classified != null && classified.claims() != null) {
            if (!recorded.equals(classified.claims().bootId())) {
                return new Unproven("its agent attests boot " + classified.claims().bootId() + ", not the recorded one");
            }
            agent = ", its agent still attests the same boot";
        } else if (classified != null && FailureReasons.of(VerificationFailure.WRONG_BOOT).equals(classified.reason())) {
            return new Unproven("its agent's attestation names another boot than the recorded one (" + classified.detail() + ")");
        }
        return new NotCarriedOut("reboot recorded by run " + earlierRun + " was never carried out: boot id unchanged and Ready since "
                + since + agent);
    }
}
