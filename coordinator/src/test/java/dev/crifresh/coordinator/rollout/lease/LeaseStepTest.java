package dev.crifresh.coordinator.rollout.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.ProgressListener.Level;
import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.rollout.lease.LeaseEffect.*;
import dev.crifresh.coordinator.rollout.lease.LeaseInput.*;
import dev.crifresh.coordinator.rollout.lease.LeaseState.*;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The run's hold on the Lease on the pure step alone: every state and input, the outage, the ends; no Vert.x, no time passing. */
class LeaseStepTest {
    private static final long MS = 1_000_000L;
    private static final LeaseStep.Config CONFIG = config(Duration.ZERO);
    private static final long NOW = 1_000 * MS;
    private static final Hold HOLD = new Hold("me", 8_000 * MS, 0, null, true);

    static LeaseStep.Config config(Duration outageBudget) {
        return new LeaseStep.Config(Duration.ofSeconds(10), Duration.ofSeconds(20), outageBudget, "kube-system/crifresh-rollout", "run-1");
    }

    static List<String> kinds(LeaseStep.Step step) {
        return step.effects().stream().map(e -> e.getClass().getSimpleName()).toList();
    }

    // ---- every state × every input -----------------------------------------------------------------------------

    private static final Map<String, LeaseState> STATES = new LinkedHashMap<>();
    private static final Map<String, LeaseInput> INPUTS = new LinkedHashMap<>();

    static {
        STATES.put("Acquiring", new Acquiring(20_000 * MS, false, false));
        STATES.put("Held", new Held(HOLD));
        STATES.put("Suspended", new Suspended(new Hold("me", 500 * MS, 1, "503", true), 600 * MS));
        STATES.put("Lost", new Lost(HOLD, "taken over by other"));
        STATES.put("Released", new Released(HOLD, true));
        INPUTS.put("Acquire", new Acquire());
        INPUTS.put("Acquired", new Acquired(NOW - 50 * MS, "me", false));
        INPUTS.put("NotAcquired", new NotAcquired("held by other", false));
        INPUTS.put("Renewed", new Renewed(NOW - 50 * MS));
        INPUTS.put("RenewRefused", new RenewRefused());
        INPUTS.put("RenewFailed", new RenewFailed("503"));
        INPUTS.put("HolderSeen", new HolderSeen("other"));
        INPUTS.put("WatchFailed", new WatchFailed("forbidden"));
        INPUTS.put("TimerFired", new TimerFired(Timer.RENEW));
        INPUTS.put("Stop", new Stop());
    }

    /**
     * Rows at 1 s: state, input, the state after (same: unchanged), the effects in order ({@code STOPPING}: cancel the four
     * timers, fence the waiting writes, close the watch). The held hold is valid until 8 s, the suspended one lapsed at 0.5 s.
     */
    static Stream<Arguments> table() {
        String rows = """
                Acquiring | Acquire      | Acquiring | TryAcquire
                Acquiring | Acquired     | Held      | ArmTimer WatchHolder Say ArmTimer TellAcquired
                Acquiring | NotAcquired  | Acquiring | Say ArmTimer
                Acquiring | Renewed      | same      |
                Acquiring | RenewRefused | same      |
                Acquiring | RenewFailed  | same      |
                Acquiring | HolderSeen   | same      |
                Acquiring | WatchFailed  | same      |
                Acquiring | TimerFired   | same      |
                Acquiring | Stop         | Released  | STOPPING
                Held      | Acquire      | same      |
                Held      | Acquired     | same      |
                Held      | NotAcquired  | same      |
                Held      | Renewed      | Held      | ArmTimer ArmTimer
                Held      | RenewRefused | Lost      | STOPPING TellLost
                Held      | RenewFailed  | Held      | ArmTimer
                Held      | HolderSeen   | Lost      | STOPPING TellLost
                Held      | WatchFailed  | same      | Say
                Held      | TimerFired   | Held      | Renew
                Held      | Stop         | Released  | STOPPING
                Suspended | Acquire      | same      |
                Suspended | Acquired     | same      |
                Suspended | NotAcquired  | same      |
                Suspended | Renewed      | Held      | ArmTimer ArmTimer CancelTimer Say Wake
                Suspended | RenewRefused | Lost      | STOPPING TellLost
                Suspended | RenewFailed  | Suspended | ArmTimer
                Suspended | HolderSeen   | Lost      | STOPPING TellLost
                Suspended | WatchFailed  | same      | Say
                Suspended | TimerFired   | Suspended | Renew
                Suspended | Stop         | Released  | STOPPING
                Lost      | Acquire      | same      |
                Lost      | Acquired     | same      |
                Lost      | NotAcquired  | same      |
                Lost      | Renewed      | same      |
                Lost      | RenewRefused | same      |
                Lost      | RenewFailed  | same      |
                Lost      | HolderSeen   | same      |
                Lost      | WatchFailed  | same      |
                Lost      | TimerFired   | same      |
                Lost      | Stop         | same      |
                Released  | Acquire      | same      |
                Released  | Acquired     | same      |
                Released  | NotAcquired  | same      |
                Released  | Renewed      | same      |
                Released  | RenewRefused | same      |
                Released  | RenewFailed  | same      |
                Released  | HolderSeen   | same      |
                Released  | WatchFailed  | same      |
                Released  | TimerFired   | same      |
                Released  | Stop         | same      |
                """;
        return rows.lines().map(line -> line.split("\\|", -1)).map(c -> Arguments.of(c[0].trim(), c[1].trim(), c[2].trim(),
                c[3].trim().replace("STOPPING", "CancelTimer CancelTimer CancelTimer CancelTimer Wake CloseWatch")));
    }

    @ParameterizedTest(name = "{0} + {1} -> {2}: {3}")
    @MethodSource("table")
    void everyInputInEveryState(String state, String input, String after, String effects) {
        LeaseState s = STATES.get(state);
        LeaseStep.Step step = LeaseStep.next(CONFIG, s, INPUTS.get(input), NOW);
        if (after.equals("same")) {
            assertEquals(s, step.state());
        } else {
            assertEquals(after, step.state().getClass().getSimpleName());
        }
        assertEquals(effects.isEmpty() ? List.of() : Arrays.asList(effects.split("\\s+")), kinds(step));
    }

    @Test
    void theTableCoversEveryPermittedStateAndInput() {
        assertEquals(names(LeaseState.class), STATES.keySet());
        assertEquals(names(LeaseInput.class), INPUTS.keySet());
        Set<String> rows = table().map(a -> a.get()[0] + "|" + a.get()[1]).collect(Collectors.toSet());
        assertEquals(STATES.size() * INPUTS.size(), rows.size(), "one row per state and input");
    }

    private static Set<String> names(Class<?> sealed) {
        return OneOfEach.permitted(sealed).stream().map(Class::getSimpleName).collect(Collectors.toSet());
    }

    // ---- acquiring ------------------------------------------------------------------------------------------------

    static LeaseStep.Step run(LeaseStep.Config c, LeaseState s, long now, LeaseInput... inputs) {
        LeaseStep.Step step = new LeaseStep.Step(s, List.of());
        for (LeaseInput in : inputs) {
            step = LeaseStep.next(c, step.state(), in, now);
        }
        return step;
    }

    @Test
    void aTakenLeaseIsHeldUntilItsSendTimePlusFourFifthsOfItsDuration() {
        LeaseStep.Step step = run(CONFIG, LeaseStep.start(), 0, new Acquire(), new Acquired(0, "run-1/a", false));
        Held held = assertInstanceOf(Held.class, step.state());
        assertEquals(8_000 * MS, held.hold().validUntil());
        assertTrue(held.holds(8_000 * MS - 1));
        assertFalse(held.holds(8_000 * MS));
        assertEquals(new ArmTimer(Timer.EXPIRY, Duration.ofMillis(8_001)), step.effects().get(0));
        assertEquals(new ArmTimer(Timer.RENEW, Duration.ofMillis(3_333)), step.effects().get(3));
        assertEquals(new Say(Level.INFO, "rollout lock acquired (Lease kube-system/crifresh-rollout, run run-1)"), step.effects().get(2));
    }

    @Test
    void anAcquireAnsweredAfterTheHoldItBoughtIsNotActedOnButTheLeaseIsGivenBack() {
        LeaseStep.Step step = run(CONFIG, LeaseStep.start(), 0, new Acquire());
        step = run(CONFIG, step.state(), 8_000 * MS, new Acquired(0, "run-1/a", false));
        Acquiring a = assertInstanceOf(Acquiring.class, step.state());
        assertTrue(a.releases(), "ours on the server: given back at the end");
        assertFalse(a.holds(8_000 * MS));
        assertEquals(List.of(new Say(Level.INFO, "waiting up to 20s for the rollout lock: the Lease answer came too late to act on"),
                new ArmTimer(Timer.ACQUIRE, Duration.ofSeconds(1))), step.effects());
        assertEquals(List.of(new TryAcquire()), run(CONFIG, a, 9_000 * MS, new TimerFired(Timer.ACQUIRE)).effects());
    }

    @Test
    void aLeaseHeldByAnotherRunUntilTheLockTimeoutIsNotAcquired() {
        LeaseStep.Step step = run(CONFIG, LeaseStep.start(), 0, new Acquire(), new NotAcquired("held by run-0/b", false));
        assertEquals(2, step.effects().size(), "said once, retried");
        step = run(CONFIG, step.state(), 5_000 * MS, new NotAcquired("held by run-0/b", false));
        assertEquals(List.of(new ArmTimer(Timer.ACQUIRE, Duration.ofSeconds(1))), step.effects(), "the wait is said once");
        step = run(CONFIG, step.state(), 20_000 * MS, new NotAcquired("held by run-0/b", false));
        assertEquals(new Released(null, false), step.state());
        assertEquals(List.of(new TellNotAcquired("rollout lock (Lease kube-system/crifresh-rollout) not acquired within 20s: held by run-0/b")),
                step.effects());
    }

    @Test
    void interruptedWhileAcquiringTheRunEndsAndGivesBackWhatItTook() {
        LeaseStep.Step step = run(CONFIG, LeaseStep.start(), 0, new Acquire(), new Acquired(0, "run-1/a", true));
        assertEquals(new Released(null, true), step.state());
        assertEquals(List.of(new TellAbandoned()), step.effects());
        step = run(CONFIG, LeaseStep.start(), 0, new Acquire(), new NotAcquired("held by run-0/b", true));
        assertEquals(new Released(null, false), step.state());
    }

    // ---- holding ---------------------------------------------------------------------------------------------------

    @Test
    void aRenewalExtendsTheHoldFromItsSendTimeAndNeverShortensIt() {
        Held held = new Held(HOLD);
        LeaseStep.Step step = run(CONFIG, held, 4_000 * MS, new Renewed(3_333 * MS));
        assertEquals(11_333 * MS, ((Held) step.state()).hold().validUntil());
        assertEquals(new ArmTimer(Timer.RENEW, Duration.ofMillis(2_666)), step.effects().get(1), "due a third after it was sent");
        step = run(CONFIG, step.state(), 4_100 * MS, new Renewed(100 * MS));
        assertEquals(11_333 * MS, ((Held) step.state()).hold().validUntil(), "an older request's answer does not shorten it");
    }

    @Test
    void aFailedRenewalIsRetriedEveryTenthWhileTheHoldIsValidThenTheExpiryEndsIt() {
        LeaseStep.Step step = run(CONFIG, new Held(HOLD), 7_000 * MS, new RenewFailed("503 Service Unavailable"));
        assertEquals(List.of(new ArmTimer(Timer.RENEW, Duration.ofSeconds(1))), step.effects());
        step = run(CONFIG, step.state(), 8_000 * MS, new RenewFailed("503 Service Unavailable"));
        assertEquals(List.of(), step.effects(), "past validUntil: no retry, the expiry decides");
        step = run(CONFIG, step.state(), 8_001 * MS, new TimerFired(Timer.EXPIRY));
        assertEquals(new Lost(new Hold("me", 8_000 * MS, 0, "503 Service Unavailable", true),
                "not renewed within its validity (last renewal: 503 Service Unavailable)"), step.state());
        assertEquals(new TellLost("lost the rollout lock (Lease kube-system/crifresh-rollout): not renewed within its validity"
                + " (last renewal: 503 Service Unavailable)"), step.effects().get(step.effects().size() - 1));
    }

    @Test
    void aDeletedLeaseEndsTheHoldAtOnce() {
        LeaseStep.Step step = run(CONFIG, new Held(HOLD), NOW, new HolderSeen(null));
        assertEquals("the Lease was deleted (or released by someone else)", assertInstanceOf(Lost.class, step.state()).why());
        assertEquals(new Held(HOLD), run(CONFIG, new Held(HOLD), NOW, new HolderSeen("me")).state(), "its own name keeps it");
    }

    @Test
    void anAllowedOutageSuspendsTheHoldAndOnlyARenewalLeavingAValidHoldResumesIt() {
        LeaseStep.Config c = config(Duration.ofSeconds(30));
        LeaseStep.Step step = run(c, new Held(HOLD.renewArmed(false)), 8_001 * MS, new TimerFired(Timer.EXPIRY));
        Suspended sus = assertInstanceOf(Suspended.class, step.state());
        assertEquals(1, sus.hold().lapses());
        assertEquals(List.of(new Say(Level.WARN, "the rollout lock (Lease kube-system/crifresh-rollout) was not renewed within its validity:"
                        + " nothing is sent until a renewal gets through; waiting up to 30s (--api-outage-budget)"),
                new ArmTimer(Timer.OUTAGE, Duration.ofSeconds(30)), new ArmTimer(Timer.RENEW, Duration.ofSeconds(1))), step.effects());
        // a renewal sent long ago, answered now: its hold has ended already — the run keeps waiting
        step = run(c, sus, 12_000 * MS, new Renewed(2_000 * MS));
        assertInstanceOf(Suspended.class, step.state());
        assertFalse(step.effects().contains(new Wake(true)));
        step = run(c, step.state(), 13_000 * MS, new Renewed(12_900 * MS));
        assertEquals(new Held(new Hold("me", 20_900 * MS, 1, null, true)), step.state());
        assertTrue(step.effects().contains(new Say(Level.INFO, "rollout lock renewed again after 4s without it: going on (every write is"
                + " decided on a fresh read)")), step.effects().toString());
        assertTrue(step.effects().contains(new Wake(true)));
    }

    @Test
    void anOutageLongerThanItsBudgetEndsTheHold() {
        LeaseStep.Config c = config(Duration.ofSeconds(30));
        LeaseStep.Step step = run(c, new Held(HOLD), 8_001 * MS, new TimerFired(Timer.EXPIRY), new RenewFailed("connection refused"));
        step = run(c, step.state(), 38_001 * MS, new TimerFired(Timer.OUTAGE));
        assertEquals("not renewed within --api-outage-budget 30s (last renewal: connection refused)",
                assertInstanceOf(Lost.class, step.state()).why());
        assertTrue(step.effects().contains(new Wake(false)));
    }

    @Test
    void theExpiryOfAValidHoldAndTimersOfOtherStatesChangeNothing() {
        assertEquals(new Held(HOLD), run(CONFIG, new Held(HOLD), 7_999 * MS, new TimerFired(Timer.EXPIRY)).state());
        assertEquals(new Held(HOLD), run(CONFIG, new Held(HOLD), NOW, new TimerFired(Timer.OUTAGE)).state());
        assertEquals(new Held(HOLD), run(CONFIG, new Held(HOLD), NOW, new TimerFired(Timer.ACQUIRE)).state());
        Suspended sus = (Suspended) STATES.get("Suspended");
        assertEquals(sus, run(CONFIG, sus, NOW, new TimerFired(Timer.EXPIRY)).state());
    }

    // ---- the end -------------------------------------------------------------------------------------------------

    @Test
    void aReleasedHoldStillFencesTheCleanupUntilItEndsAndIsGivenBack() {
        LeaseState released = run(CONFIG, new Held(HOLD), NOW, new Stop()).state();
        assertTrue(released.holds(7_999 * MS));
        assertFalse(released.holds(8_000 * MS));
        assertTrue(released.releases());
    }

    @Test
    void aLostHoldIsNeverGivenBack() {
        LeaseState lost = run(CONFIG, new Held(HOLD), NOW, new HolderSeen("operator")).state();
        assertFalse(lost.releases(), "it may be someone else's now");
        assertFalse(lost.holds(NOW));
    }
}
