package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.classify.Role;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.kube.LeaseLock;
import dev.crifresh.coordinator.rollout.lease.LeaseKeeper;
import dev.crifresh.coordinator.rollout.plan.RolloutPlanTest;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The run's timers on a {@link ManualTicker}: time moves only when the test says so, with no Vert.x and no sleeping —
 * the Lease hold's arithmetic, the waits for config-pending and joined nodes.
 */
class RunTimersTest {
    private final ManualTicker ticker = new ManualTicker();

    /** A Lease whose acquire succeeds at once and whose renewals answer what the test says. */
    private static final class Lock implements LeaseLock {
        final AtomicInteger renewals = new AtomicInteger();
        final AtomicBoolean renewWorks = new AtomicBoolean(true);

        @Override
        public Future<Attempt> tryAcquire() {
            return Future.succeededFuture(new Attempt(true, "run-a/1"));
        }

        @Override
        public Future<Boolean> renew() {
            renewals.incrementAndGet();
            return renewWorks.get() ? Future.succeededFuture(true) : Future.failedFuture("503 Service Unavailable");
        }

        @Override
        public Future<Void> release() {
            return Future.succeededFuture();
        }

        @Override
        public Future<String> holder() {
            return Future.succeededFuture("run-a/1");
        }

        @Override
        public Future<Watch> watch(java.util.function.Consumer<String> holder) {
            return Future.succeededFuture(() -> { });
        }
    }

    private static final class Events implements LeaseKeeper.LockListener {
        final List<String> seen = new ArrayList<>();

        @Override
        public boolean done() {
            return false;
        }

        @Override
        public boolean interrupted() {
            return false;
        }

        @Override
        public void lockAcquired() {
            seen.add("acquired");
        }

        @Override
        public void lockAbandoned() {
            seen.add("abandoned");
        }

        @Override
        public void lockNotAcquired(String why) {
            seen.add("not acquired: " + why);
        }

        @Override
        public void lockLost(String why) {
            seen.add("lost: " + why);
        }
    }

    private LeaseKeeper keeper(Lock lock, Events events) {
        CoordinatorSettings settings = CoordinatorSettings.builder().leaseDuration(Duration.ofSeconds(10)).build();
        return new LeaseKeeper(ticker, lock, settings.lease(), text -> { }, events);
    }

    @Test
    void aHoldRenewedEveryThirdOfItsDurationStaysValid() {
        Lock lock = new Lock();
        Events events = new Events();
        LeaseKeeper keeper = keeper(lock, events);
        keeper.acquire();
        assertEquals(List.of("acquired"), events.seen);
        assertTrue(keeper.held());
        ticker.advance(Duration.ofSeconds(60));
        assertTrue(keeper.held());
        assertEquals(18, lock.renewals.get(), "one renewal every 3.333 s");
        assertEquals(List.of("acquired"), events.seen);
    }

    @Test
    void withoutARenewalTheHoldEndsAtFourFifthsOfItsDurationAfterTheLastSuccessfulRequestWasSent() {
        Lock lock = new Lock();
        Events events = new Events();
        LeaseKeeper keeper = keeper(lock, events);
        keeper.acquire();
        lock.renewWorks.set(false);
        ticker.advance(Duration.ofMillis(7_999));
        assertTrue(keeper.held(), "valid until 8 s (10 s minus the 2 s margin)");
        assertTrue(lock.renewals.get() > 1, "a failed renewal is retried");
        assertEquals(List.of("acquired"), events.seen);
        ticker.advance(Duration.ofMillis(2));
        assertFalse(keeper.held());
        assertEquals(2, events.seen.size(), events.seen.toString());
        assertTrue(events.seen.get(1).startsWith("lost: lost the rollout lock"), events.seen.toString());
        assertTrue(events.seen.get(1).contains("last renewal: 503 Service Unavailable"), events.seen.toString());
        int renewals = lock.renewals.get();
        ticker.advance(Duration.ofSeconds(30));
        assertEquals(renewals, lock.renewals.get(), "a lost hold is not renewed any more");
        assertEquals(0, ticker.pending(), "no timer left behind");
    }

    private static Classification classified(String name, NodeVerdict verdict) {
        return RolloutPlanTest.classified(RolloutPlanTest.facts(name, Role.WORKER, null, null, false), verdict);
    }

    @Test
    void aPendingWaitEndsWhenItsNodesSettleOrItsTimeoutPassesFirst() {
        List<String> seen = new ArrayList<>();
        PendingWait wait = new PendingWait(ticker, c -> c.verdict() == NodeVerdict.FRESH, c -> seen.add("settled " + c.name()),
                () -> seen.add("all settled"), () -> seen.add("timed out"));
        wait.add("w1");
        wait.add("w2");
        wait.start(Duration.ofSeconds(30));
        wait.check(classified("w1", NodeVerdict.FRESH));
        wait.check(classified("w2", NodeVerdict.STALE));
        ticker.advance(Duration.ofSeconds(29));
        assertEquals(List.of("settled w1"), seen);
        wait.check(classified("w2", NodeVerdict.FRESH));
        assertEquals(List.of("settled w1", "settled w2", "all settled"), seen);
        assertEquals(0, ticker.pending(), "the timeout was cancelled");

        PendingWait late = new PendingWait(ticker, c -> c.verdict() == NodeVerdict.FRESH, c -> seen.add("settled " + c.name()),
                () -> seen.add("all settled"), () -> seen.add("timed out"));
        late.add("w3");
        late.start(Duration.ofSeconds(30));
        ticker.advance(Duration.ofSeconds(30));
        assertEquals("timed out", seen.get(seen.size() - 1));
        assertEquals(List.of("w3"), List.copyOf(late.names()), "the nodes left are named");
    }

    @Test
    void aJoinedNodeIsDecidedWhenItAttestsOrWhenItsWaitEnds() {
        List<String> settled = new ArrayList<>();
        JoinedNodes joined = new JoinedNodes(ticker, Duration.ofSeconds(60), settled::add);
        joined.add("new-1");
        joined.add("new-2");
        joined.check(classified("new-1", NodeVerdict.UNKNOWN));
        assertTrue(settled.isEmpty(), "unknown: its agent has not attested yet");
        joined.check(classified("new-1", NodeVerdict.STALE));
        assertEquals(List.of("new-1"), settled);
        ticker.advance(Duration.ofSeconds(59));
        assertEquals(List.of("new-1"), settled);
        ticker.advance(Duration.ofSeconds(1));
        assertEquals(List.of("new-1", "new-2"), settled, "its wait ended: decided with what it has");
        assertTrue(joined.noneWaiting());
        assertEquals(List.of("new-1", "new-2"), joined.all());
    }
}
