package dev.crifresh.coordinator.rollout.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.base.NodeAction;
import dev.crifresh.coordinator.base.ProgressListener;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.events.EventReason;
import dev.crifresh.coordinator.events.RolloutEvents;
import dev.crifresh.coordinator.kube.EventOps;
import dev.crifresh.coordinator.placement.EvictionPlacement;
import dev.crifresh.coordinator.report.StopReason;
import dev.crifresh.coordinator.silence.SilenceOutcome;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The observer handles every permitted {@link RunEvent}: none reaches its branch that fails loudly. */
class RunObserverTest {
    private final List<String> lines = new ArrayList<>();
    private final List<RunEvent> passedOn = new ArrayList<>();

    private RunObserver observer() {
        ProgressListener progress = new ProgressListener() {
            @Override
            public void line(String text) {
                lines.add(text);
            }

            @Override
            public void log(Level level, String text) {
                lines.add(level + " " + text);
            }
        };
        RolloutEvents events = new RolloutEvents(EventOps.NONE, "run-1", name -> null, progress, Clock.systemUTC(), () -> true);
        RunObserver observer = new RunObserver(progress, events);
        observer.also(passedOn::add);
        return observer;
    }

    private static Classification classification(String name) {
        NodeFacts facts = NodeFacts.of(new NodeBuilder().withNewMetadata().withName(name).withUid("uid-" + name)
                .endMetadata().build());
        return new Classification(facts, NodeVerdict.STALE, "Because", "the detail", false, null);
    }

    /** One event of every permitted type. */
    private static List<RunEvent> oneOfEach() {
        Classification w1 = classification("w1");
        return List.of(
                new RunEvent.LockAcquired(),
                new RunEvent.LockLost("taken over"),
                new RunEvent.WatchRetry("connection refused"),
                new RunEvent.Classified(List.of(w1)),
                new RunEvent.ConfigWaitStarted(Duration.ofSeconds(30), "ghcr.io", List.of("w1")),
                new RunEvent.ConfigSettled(w1),
                new RunEvent.NodeDecided("w1", new NodeAction(Action.REBOOT, "stale")),
                new RunEvent.ApiOutageAllowed("cp1", "the API server goes away with it"),
                new RunEvent.LeftoverReleased("w2", true),
                new RunEvent.Placed(EvictionPlacement.off(List.of("w3"))),
                new RunEvent.NotRolled("w2", "not rolled: draining it would lose a pod"),
                new RunEvent.RollStarted(List.of("w1"), 1, 1),
                new RunEvent.Blocked("waiting for the budget"),
                new RunEvent.FreshWaitStarted("none", Duration.ofMinutes(1), List.of("w1")),
                new RunEvent.TurnedFresh(w1),
                new RunEvent.Joined("w9", Duration.ofMinutes(2)),
                new RunEvent.JoinedDeleted("w9"),
                new RunEvent.JoinedDecided("w9", w1, RunEvent.JoinedRoute.ROLLED),
                new RunEvent.InventoryDone(1),
                new RunEvent.NodeProgress("w1:", null, "drained"),
                new RunEvent.RebootOrdered("w1", false),
                new RunEvent.NodeEvent("w1", EventReason.ACTION, "reboot"),
                new RunEvent.Silence(new SilenceOutcome("w1", SilenceOutcome.Kind.NOTHING, List.of(), "no Alertmanager")),
                new RunEvent.Warning("careful"),
                new RunEvent.Stopping(StopReason.LOCK_NOT_ACQUIRED, "held by another run", false),
                new RunEvent.Stopping(StopReason.INTERRUPTED, "interrupted", true));
    }

    @Test
    void everyPermittedEventTypeIsHandledAndPassedOn() {
        List<RunEvent> events = oneOfEach();
        Set<String> permitted = Arrays.stream(RunEvent.class.getPermittedSubclasses()).map(Class::getSimpleName)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> covered = events.stream().map(e -> e.getClass().getSimpleName()).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(permitted, covered, "a RunEvent type without a case here");

        RunObserver observer = observer();
        events.forEach(observer); // the final branch throws for an unhandled type
        assertEquals(events, passedOn);
    }

    @Test
    void typedPointsAndALockNotAcquiredWriteNoLineOfTheirOwn() {
        RunObserver observer = observer();
        observer.accept(new RunEvent.LockAcquired());
        observer.accept(new RunEvent.RebootOrdered("w1", true));
        observer.accept(new RunEvent.Stopping(StopReason.LOCK_NOT_ACQUIRED, "held by another run", false));
        assertTrue(lines.isEmpty(), lines.toString());
        observer.accept(new RunEvent.Stopping(StopReason.INTERRUPTED, "interrupted", true));
        assertEquals(List.of("WARN stopping: interrupted; no new reboots"), lines);
    }
}
