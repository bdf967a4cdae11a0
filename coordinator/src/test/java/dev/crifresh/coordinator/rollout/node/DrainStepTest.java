package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.kube.PodOps.Eviction;
import dev.crifresh.coordinator.rollout.node.DrainEffect.*;
import dev.crifresh.coordinator.rollout.node.DrainInput.*;
import dev.crifresh.coordinator.rollout.node.DrainState.*;
import dev.crifresh.coordinator.base.DrainRules;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
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

/** A node's drain on the pure step alone: every state and input, the back-off, the deadline; no Vert.x, no API, no time passing. */
class DrainStepTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    // ---- fixtures ---------------------------------------------------------------------------------------------

    static final DrainRules RULES = DrainRules.KUBECTL_DEFAULTS;

    /** A ReplicaSet's pod: kubectl drain evicts it without any opt-in. */
    static Pod pod(String name, String uid) {
        return new PodBuilder(bare(name, uid)).editMetadata().addNewOwnerReference().withKind("ReplicaSet")
                .withName("rs").withController(true).endOwnerReference().endMetadata().build();
    }

    /** A pod without a controller: evicted only with --force. */
    static Pod bare(String name, String uid) {
        return new PodBuilder().withNewMetadata().withNamespace("shop").withName(name).withUid(uid).endMetadata().build();
    }

    static Pod terminating(Pod p) {
        return new PodBuilder(p).editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();
    }

    static Pod daemon(String name, String uid) {
        return new PodBuilder(pod(name, uid)).editMetadata().addNewOwnerReference().withKind("DaemonSet").withName("ds")
                .withController(true).endOwnerReference().endMetadata().build();
    }

    private static final Pod WEB = pod("web-1", "u1");
    private static final Pod DB = pod("db-0", "u2");

    static DrainStep.Step run(DrainState s, DrainInput... inputs) {
        DrainStep.Step step = new DrainStep.Step(s, List.of());
        for (DrainInput in : inputs) {
            step = DrainStep.next(step.state(), in);
        }
        return step;
    }

    static DrainState started() {
        return run(DrainStep.idle(), new Start(TIMEOUT, RULES)).state();
    }

    static DrainState watching() {
        return run(started(), new WatchStarted(List.of(WEB))).state();
    }

    static Book book(DrainState s) {
        return s instanceof Watching w ? w.book() : assertInstanceOf(Listing.class, s).book();
    }

    static List<String> kinds(DrainStep.Step step) {
        return step.effects().stream().map(e -> e.getClass().getSimpleName()).toList();
    }

    static <T extends DrainEffect> T only(DrainStep.Step step, Class<T> kind) {
        List<T> all = step.effects().stream().filter(kind::isInstance).map(kind::cast).toList();
        assertEquals(1, all.size(), kinds(step).toString());
        return all.get(0);
    }

    // ---- every state × every input -----------------------------------------------------------------------------

    private static final Map<String, DrainState> STATES = new LinkedHashMap<>();
    private static final Map<String, DrainInput> INPUTS = new LinkedHashMap<>();

    static {
        STATES.put("Idle", new Idle(4));
        STATES.put("Listing", new Listing(4, Book.fresh(TIMEOUT, RULES)));
        STATES.put("Watching", new Watching(4, Book.fresh(TIMEOUT, RULES)));
        STATES.put("Drained", new DrainState.Drained(4));
        STATES.put("TimedOut", new TimedOut(4, "why"));
        INPUTS.put("Start", new Start(TIMEOUT, RULES));
        INPUTS.put("Stop", new Stop());
        INPUTS.put("Listed", new Listed(List.of(WEB)));
        INPUTS.put("ListFailed", new ListFailed("boom"));
        INPUTS.put("WatchStarted", new WatchStarted(List.of(WEB)));
        INPUTS.put("WatchFailed", new WatchFailed("refused"));
        INPUTS.put("WatchSaw", new WatchSaw(List.of(WEB)));
        INPUTS.put("Answered", new Answered(List.of(new EvictionAnswer(WEB, Eviction.BLOCKED, null))));
        INPUTS.put("NotSent", new NotSent(List.of(WEB)));
        INPUTS.put("TimerFired", new TimerFired(Timer.DEADLINE));
    }

    /**
     * Rows: state, input, the state after (same: unchanged; epoch +1: the next epoch), the effects in order. A stopped or
     * ended drain takes nothing but a new start.
     */
    static Stream<Arguments> table() {
        String rows = """
                Idle     | Start        | Listing  +1 | Close ArmTimer ArmTimer ListPods Watch
                Idle     | Stop         | same        |
                Idle     | Listed       | same        |
                Idle     | ListFailed   | same        |
                Idle     | WatchStarted | same        |
                Idle     | WatchFailed  | same        |
                Idle     | WatchSaw     | same        |
                Idle     | Answered     | same        |
                Idle     | NotSent      | same        |
                Idle     | TimerFired   | same        |
                Drained  | Start        | Listing  +1 | Close ArmTimer ArmTimer ListPods Watch
                Drained  | Stop         | same        |
                Drained  | Listed       | same        |
                Drained  | ListFailed   | same        |
                Drained  | WatchStarted | same        |
                Drained  | WatchFailed  | same        |
                Drained  | WatchSaw     | same        |
                Drained  | Answered     | same        |
                Drained  | NotSent      | same        |
                Drained  | TimerFired   | same        |
                TimedOut | Start        | Listing  +1 | Close ArmTimer ArmTimer ListPods Watch
                TimedOut | Stop         | same        |
                TimedOut | Listed       | same        |
                TimedOut | ListFailed   | same        |
                TimedOut | WatchStarted | same        |
                TimedOut | WatchFailed  | same        |
                TimedOut | WatchSaw     | same        |
                TimedOut | Answered     | same        |
                TimedOut | NotSent      | same        |
                TimedOut | TimerFired   | same        |
                Listing  | Start        | Listing  +1 | Close ArmTimer ArmTimer ListPods Watch
                Listing  | Stop         | Idle     +1 | Close
                Listing  | Listed       | Listing     | ArmTimer Say Evict
                Listing  | ListFailed   | Listing     | ArmTimer
                Listing  | WatchStarted | Watching    | ArmTimer Say Evict
                Listing  | WatchFailed  | Listing     | Say
                Listing  | WatchSaw     | Listing     | Say Evict
                Listing  | Answered     | Listing     | ArmTimer ListPods
                Listing  | NotSent      | Listing     |
                Listing  | TimerFired   | TimedOut +1 | Close TellFailed
                Watching | Start        | Listing  +1 | Close ArmTimer ArmTimer ListPods Watch
                Watching | Stop         | Idle     +1 | Close
                Watching | Listed       | Watching    | ArmTimer Say Evict
                Watching | ListFailed   | Watching    | ArmTimer
                Watching | WatchStarted | Watching    | ArmTimer Say Evict
                Watching | WatchFailed  | Watching    | Say
                Watching | WatchSaw     | Watching    | Say Evict
                Watching | Answered     | Watching    | ArmTimer ReadWatch
                Watching | NotSent      | Watching    |
                Watching | TimerFired   | TimedOut +1 | Close TellFailed
                """;
        return rows.lines().map(line -> line.split("\\|", -1)).map(c -> Arguments.of(c[0].trim(), c[1].trim(), c[2].trim(), c[3].trim()));
    }

    @ParameterizedTest(name = "{0} + {1} -> {2}: {3}")
    @MethodSource("table")
    void everyInputInEveryState(String state, String input, String after, String effects) {
        DrainState s = STATES.get(state);
        DrainStep.Step step = DrainStep.next(s, INPUTS.get(input));
        String[] want = after.split("\\s+");
        if (want[0].equals("same")) {
            assertEquals(s, step.state());
        } else {
            assertEquals(want[0], step.state().getClass().getSimpleName());
            assertEquals(s.epoch() + (want.length > 1 ? 1 : 0), step.state().epoch(), "the epoch");
        }
        assertEquals(effects.isEmpty() ? List.of() : Arrays.asList(effects.split("\\s+")), kinds(step));
    }

    @Test
    void theTableCoversEveryPermittedStateAndInput() {
        assertEquals(names(DrainState.class), STATES.keySet());
        assertEquals(names(DrainInput.class), INPUTS.keySet());
        Set<String> rows = table().map(a -> a.get()[0] + "|" + a.get()[1]).collect(Collectors.toSet());
        assertEquals(STATES.size() * INPUTS.size(), rows.size(), "one row per state and input");
    }

    private static Set<String> names(Class<?> sealed) {
        return OneOfEach.permitted(sealed).stream().map(Class::getSimpleName).collect(Collectors.toSet());
    }

    // ---- the way through a drain --------------------------------------------------------------------------------

    @Test
    void evictsWhatItMayAndEndsOnceTheEvictedPodsAreGone() {
        Pod ds = daemon("agent", "u3");
        DrainStep.Step step = run(started(), new Listed(List.of(WEB, ds, terminating(DB))));
        assertEquals(List.of(WEB), only(step, Evict.class).pods(), "not the DaemonSet pod, not one already terminating");
        assertEquals("draining: 1 pod left", only(step, Say.class).text());

        step = run(step.state(), new Answered(List.of(new EvictionAnswer(WEB, Eviction.EVICTED, null))));
        assertEquals(List.of("ListPods"), kinds(step), "judged again at once; no back-off");
        step = run(step.state(), new Listed(List.of(terminating(WEB), ds)));
        assertEquals(List.of("ArmTimer"), kinds(step), "the evicted pod is waited for while it terminates, the count unchanged said once");
        assertEquals("shop/web-1 (evicted, still terminating)", book(step.state()).waitDetail());

        step = run(step.state(), new Listed(List.of(ds)));
        assertInstanceOf(DrainState.Drained.class, step.state());
        assertEquals(List.of("Close", "Say", "TellDrained"), kinds(step));
    }

    @Test
    void refusalsAndFailedListsShareOneDoublingBackoff() {
        DrainStep.Step step = run(started(), new Listed(List.of(DB)));
        step = run(step.state(), new Answered(List.of(new EvictionAnswer(DB, Eviction.BLOCKED, null))));
        assertEquals(new ArmTimer(Timer.RETRY, Duration.ofMillis(500)), step.effects().get(0), "1/20 of the drain timeout first");
        step = run(step.state(), new ListFailed("boom"));
        assertEquals(new ArmTimer(Timer.RELIST, Duration.ofMillis(1000)), step.effects().get(0), "a failed list takes the next delay");
        assertEquals("cannot list pods: boom", book(step.state()).waitDetail());

        step = run(step.state(), new TimerFired(Timer.RETRY), new Listed(List.of(DB)));
        assertEquals(List.of(DB), only(step, Evict.class).pods(), "the refused pod is asked again once the back-off passed");
        step = run(step.state(), new Answered(List.of(new EvictionAnswer(DB, null, "500 Internal"))));
        assertEquals(new ArmTimer(Timer.RETRY, Duration.ofMillis(2000)), step.effects().get(0));
        step = run(step.state(), new TimerFired(Timer.RETRY), new Listed(List.of(DB)),
                new Answered(List.of(new EvictionAnswer(DB, Eviction.BLOCKED, null))));
        assertEquals(new ArmTimer(Timer.RETRY, Duration.ofMillis(2500)), step.effects().get(0), "capped at a quarter of the timeout");
    }

    @Test
    void oneBackoffTimerAtATimeAndRefusedPodsAreNotAskedAgainBeforeIt() {
        DrainStep.Step step = run(started(), new Listed(List.of(DB, WEB)));
        step = run(step.state(), new Answered(List.of(new EvictionAnswer(DB, Eviction.BLOCKED, null), new EvictionAnswer(WEB, Eviction.BLOCKED, null))));
        step = run(step.state(), new Listed(List.of(DB, WEB)));
        assertTrue(step.effects().stream().noneMatch(Evict.class::isInstance), kinds(step).toString());
        assertEquals("shop/db-0 (eviction refused by a PodDisruptionBudget), shop/web-1 (eviction refused by a PodDisruptionBudget)",
                book(step.state()).waitDetail(), "in the order refused");
        assertEquals(1, book(step.state()).retries());
    }

    @Test
    void theDeadlineNamesWhatTheDrainWaitedFor() {
        Pod other = pod("cache", "u4");
        DrainStep.Step step = run(started(), new Listed(List.of(DB, WEB)),
                new Answered(List.of(new EvictionAnswer(DB, Eviction.BLOCKED, null), new EvictionAnswer(WEB, Eviction.EVICTED, null))),
                new Listed(List.of(DB, terminating(WEB), other)), new Listed(List.of(DB, terminating(WEB), other)));
        step = run(step.state(), new TimerFired(Timer.DEADLINE));
        String why = "drain did not finish within 10s: shop/db-0 (eviction refused by a PodDisruptionBudget), "
                + "shop/web-1 (evicted, still terminating), shop/cache (eviction requested)";
        assertEquals(new TimedOut(step.state().epoch(), why), step.state());
        assertEquals(List.of(new Close(), new TellFailed(why)), step.effects());
    }

    /** A pod that appears after the run's pre-check: never evicted without its opt-in, and the deadline names it. */
    @Test
    void aBareOrEmptyDirPodIsNeverEvictedWithoutItsOptIn() {
        Pod bare = bare("job-x", "u5");
        Pod scratch = new PodBuilder(pod("scratch-0", "u6")).editSpec().addNewVolume().withName("tmp").withNewEmptyDir()
                .endEmptyDir().endVolume().endSpec().build();
        DrainStep.Step step = run(started(), new Listed(List.of(WEB, bare, scratch)));
        assertEquals(List.of(new Evict(List.of(WEB))), step.effects().stream().filter(Evict.class::isInstance).toList(),
                "only the ReplicaSet's pod without emptyDir is evicted");
        step = run(step.state(), new Answered(List.of(new EvictionAnswer(WEB, Eviction.EVICTED, null))),
                new Listed(List.of(bare, scratch)), new Listed(List.of(bare, scratch)));
        assertTrue(step.effects().stream().noneMatch(Evict.class::isInstance), kinds(step).toString());
        step = run(step.state(), new TimerFired(Timer.DEADLINE));
        assertEquals(new TellFailed("drain did not finish within 10s: shop/job-x (declares no controller, --force): not evicted, "
                + "shop/scratch-0 (has emptyDir data, --delete-emptydir-data): not evicted"), step.effects().get(1));

        DrainStep.Step forced = run(DrainStep.idle(), new Start(TIMEOUT, RULES.withForce(true)), new Listed(List.of(bare)));
        assertEquals(List.of(new Evict(List.of(bare))), forced.effects().stream().filter(Evict.class::isInstance).toList(),
                "--force evicts a pod without a controller");
    }

    @Test
    void whileItWaitsItNamesThePodsAndWhyAtLeastEvery30Seconds() {
        DrainStep.Step start = DrainStep.next(DrainStep.idle(), new Start(Duration.ofMinutes(10), RULES));
        assertEquals(new ArmTimer(Timer.PROGRESS, Duration.ofSeconds(30)), start.effects().get(2), "30 s with the default 10m timeout");
        assertEquals(2500, DrainStep.progressMillis(Duration.ofSeconds(10)), "a quarter of a shorter drain timeout");
        Pod other = pod("cache", "u4");
        DrainStep.Step step = run(started(), new Listed(List.of(DB, WEB)),
                new Answered(List.of(new EvictionAnswer(DB, Eviction.BLOCKED, null), new EvictionAnswer(WEB, Eviction.EVICTED, null))),
                new Listed(List.of(DB, terminating(WEB), other)), new Listed(List.of(DB, terminating(WEB), other)));
        DrainState before = step.state();
        step = run(before, new TimerFired(Timer.PROGRESS));
        assertEquals(before, step.state(), "saying it changes nothing");
        assertEquals(List.of(new Say("draining: still waiting for 3 pods: shop/db-0 (eviction refused by a PodDisruptionBudget), "
                        + "shop/web-1 (evicted, still terminating), shop/cache (eviction requested)"),
                new ArmTimer(Timer.PROGRESS, Duration.ofMillis(2500))), step.effects(), "and again after the same period");
        assertEquals("draining: still waiting: its pods were not listed yet",
                ((Say) run(started(), new TimerFired(Timer.PROGRESS)).effects().get(0)).text());
    }

    @Test
    void beforeAnyListTheDeadlineSaysSo() {
        DrainStep.Step step = run(started(), new TimerFired(Timer.DEADLINE));
        assertEquals(new TellFailed("drain did not finish within 10s: its pods were not listed yet"), step.effects().get(1));
    }

    @Test
    void theWatchMakesTheReListASlowSafetyNetAndAFailedListTakesNoBackoff() {
        DrainStep.Step step = run(started(), new WatchStarted(List.of()));
        assertEquals(List.of(new Close(), new Say("drained"), new TellDrained()), step.effects(),
                "a node with no pod to evict is drained on the watch's first list, no re-list set");
        step = run(watching(), new ListFailed("boom"));
        assertEquals(List.of(new ArmTimer(Timer.RELIST, Duration.ofMillis(2500))), step.effects());
        assertEquals(0, book(step.state()).retries());
        assertEquals(new ArmTimer(Timer.RELIST, Duration.ofMillis(5000)),
                run(run(DrainStep.idle(), new Start(Duration.ofMinutes(10), RULES), new WatchStarted(List.of(WEB))).state(), new Listed(List.of(WEB)))
                        .effects().get(0), "at most 5 s");
    }

    @Test
    void withoutAWatchItListsAtThePollPeriod() {
        DrainStep.Step step = run(started(), new WatchFailed("refused"));
        assertEquals(List.of(new Say("cannot watch its pods (refused); listing them every 500 ms instead")), step.effects());
        step = run(step.state(), new Listed(List.of(WEB)));
        assertEquals(new ArmTimer(Timer.RELIST, Duration.ofMillis(500)), step.effects().get(0));
        assertEquals(List.of(new ListPods()), run(step.state(), new TimerFired(Timer.RELIST)).effects());
        assertEquals(20, DrainStep.pollMillis(Duration.ofMillis(100)), "at least 20 ms");
        assertEquals(1000, DrainStep.pollMillis(Duration.ofHours(1)), "at most 1 s");
    }

    @Test
    void evictionsTheFenceHeldBackAreAskedAgainOnTheNextLook() {
        DrainStep.Step step = run(started(), new Listed(List.of(WEB)));
        assertEquals(Set.of("u1"), book(step.state()).evicting());
        step = run(step.state(), new NotSent(List.of(WEB)));
        assertEquals(Set.of(), book(step.state()).evicting());
        assertEquals(List.of(WEB), only(run(step.state(), new Listed(List.of(WEB))), Evict.class).pods());
    }

    @Test
    void aPodInFlightIsNotEvictedTwice() {
        DrainStep.Step step = run(started(), new Listed(List.of(WEB)), new WatchStarted(List.of(WEB)));
        assertTrue(step.effects().stream().noneMatch(Evict.class::isInstance), kinds(step).toString());
        assertEquals("shop/web-1 (eviction requested)", book(step.state()).waitDetail());
    }

    @Test
    void aPodWithoutUidIsKnownByItsName() {
        Pod noUid = new PodBuilder(pod("no-uid", null)).build();
        DrainStep.Step step = run(started(), new Listed(List.of(noUid)));
        assertEquals(Set.of("shop/no-uid"), book(step.state()).evicting());
    }

    @Test
    void everyStartAndEveryEndMovesTheEpochOn() {
        DrainState s = started();
        assertEquals(1, s.epoch());
        s = run(s, new Start(TIMEOUT, RULES)).state();
        assertEquals(2, s.epoch());
        s = run(s, new Listed(List.of()), new Start(TIMEOUT, RULES), new Stop()).state();
        assertEquals(new Idle(5), s);
    }
}
