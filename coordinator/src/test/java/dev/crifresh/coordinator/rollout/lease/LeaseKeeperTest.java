package dev.crifresh.coordinator.rollout.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.kube.LeaseLock;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The Lease as a fence, on a {@link ManualTicker} with a Lease whose answers the test decides: a hold ends at send time +
 * duration − margin, whatever the answers do. No Vert.x, no API server, no time passing but the test's (the Lease
 * against the mock API server: the rollout suites, e.g. {@code DrainCallInFlightTest}, {@code CoordinatorApiFaultSuiteTest}).
 */
class LeaseKeeperTest {
    private final ManualTicker ticker = new ManualTicker();
    private final List<String> events = new ArrayList<>();
    private boolean done;

    /** A Lease whose answers the test decides. */
    private final class ScriptedLease implements LeaseLock {
        Supplier<Future<Attempt>> acquire = () -> Future.succeededFuture(new Attempt(true, "me"));
        Supplier<Future<Boolean>> renew = () -> Future.succeededFuture(true);
        int acquires;
        int renewals;
        /** What a read of the Lease finds. */
        String holder = "me";
        /** The watch's listener, once the keeper started it. */
        Consumer<String> watcher;

        @Override
        public Future<Attempt> tryAcquire() {
            acquires++;
            return acquire.get();
        }

        @Override
        public Future<Boolean> renew() {
            renewals++;
            return renew.get();
        }

        @Override
        public Future<Void> release() {
            return Future.succeededFuture();
        }

        @Override
        public Future<String> holder() {
            return Future.succeededFuture(holder);
        }

        @Override
        public Future<Watch> watch(Consumer<String> changed) {
            watcher = changed;
            changed.accept(holder);
            return Future.succeededFuture(() -> watcher = null);
        }

        /** An answer {@code after} from now, on the ticker. */
        <T> Future<T> later(Duration after, T value) {
            Promise<T> p = Promise.promise();
            ticker.setTimer(after, () -> p.complete(value));
            return p.future();
        }
    }

    private LeaseKeeper keeper(ScriptedLease lease, Duration duration) {
        return keeper(lease, duration, Duration.ZERO);
    }

    private LeaseKeeper keeper(ScriptedLease lease, Duration duration, Duration outageBudget) {
        CoordinatorSettings settings = CoordinatorSettings.builder().leaseDuration(duration).lockTimeout(Duration.ofSeconds(20))
                .apiOutageBudget(outageBudget).build();
        LeaseKeeper keeper = new LeaseKeeper(ticker, lease, settings.lease(), events::add, new LeaseKeeper.LockListener() {
            @Override
            public boolean done() {
                return done;
            }

            @Override
            public boolean interrupted() {
                return false;
            }

            @Override
            public void lockAcquired() {
                events.add("acquired");
            }

            @Override
            public void lockAbandoned() {
                events.add("abandoned");
            }

            @Override
            public void lockNotAcquired(String why) {
                events.add("not acquired: " + why);
            }

            @Override
            public void lockLost(String why) {
                events.add("lost: " + why);
            }
        });
        keeper.acquire();
        return keeper;
    }

    private boolean lost() {
        return events.stream().anyMatch(e -> e.startsWith("lost: "));
    }

    /**
     * docs/design.md, "Fencing", as one table on the manual ticker: Lease duration 10 s, margin 2 s. Each row: when (ms
     * since the acquire was sent), what happens, whether the run may act right after.
     */
    @Test
    void theFencingArgument() {
        ScriptedLease lease = new ScriptedLease();
        List<Promise<Boolean>> renewals = new ArrayList<>();
        lease.renew = () -> {
            Promise<Boolean> p = Promise.promise();
            renewals.add(p);
            return p.future();
        };
        long start = ticker.nanoTime();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(10));
        record Row(long atMillis, String what, Runnable act, boolean held) {
        }
        List<Row> table = List.of(
                new Row(0, "the acquire, sent at 0, took the Lease: held until 0 + 10 s − 2 s", () -> { }, true),
                new Row(3_333, "the renewal is sent a third of the duration after the acquire was sent", () -> { }, true),
                new Row(3_500, "it is answered: held until 3.333 + 8 = 11.333 s, from its send time, not its answer",
                        () -> renewals.get(0).complete(true), true),
                new Row(6_666, "the next renewal is sent, and hangs", () -> { }, true),
                new Row(11_332, "no answer: still held until 11.333 s", () -> { }, true),
                new Row(11_334, "the expiry timer ends the hold while the renewal still hangs: nothing is sent from here",
                        () -> { }, false),
                new Row(12_000, "the hanging renewal is answered late: the hold stays lost", () -> renewals.get(1).complete(true), false),
                // another run takes the Lease only once renewTime + duration has passed on its clock; the renewTime our
                // renewal wrote is later than its send time (3.333 s), so not before 13.333 s = validUntil + margin
                new Row(13_333, "the earliest another run may hold it", () -> { }, false));
        for (Row row : table) {
            ticker.advance(Duration.ofNanos(start + row.atMillis() * 1_000_000 - ticker.nanoTime()));
            row.act().run();
            assertEquals(row.held(), keeper.held(), row.atMillis() + " ms: " + row.what());
        }
        assertEquals(2, renewals.size(), "no renewal after the loss");
        assertEquals(1, events.stream().filter(e -> e.startsWith("lost: ")).count(), events.toString());
        assertTrue(events.get(events.size() - 1).contains("not renewed within its validity"), events.toString());
        assertFalse(keeper.release().failed());
        assertEquals(0, ticker.pending(), "no timer left behind");
    }

    @Test
    void aRenewalThatHangsEndsTheHoldAtValidUntilWhileItIsStillInFlight() {
        ScriptedLease lease = new ScriptedLease();
        Promise<Boolean> hanging = Promise.promise();
        lease.renew = hanging::future; // never answers
        LeaseKeeper keeper = keeper(lease, Duration.ofMillis(600));
        assertTrue(events.contains("acquired"));
        ticker.advance(Duration.ofMillis(481));
        assertTrue(lost(), events.toString());
        assertFalse(hanging.future().isComplete(), "the renewal was still in flight");
        assertFalse(keeper.held());
        assertTrue(events.stream().anyMatch(e -> e.contains("not renewed within its validity")), events.toString());
    }

    @Test
    void duringAnAllowedOutageARenewalAnsweredAfterItsHoldEndedKeepsTheRunWaitingInsteadOfFencingIt() {
        ScriptedLease lease = new ScriptedLease();
        Duration duration = Duration.ofMillis(600); // hold: 480 ms after the send
        boolean[] slow = {true};
        // the first renewals are answered only after the hold they would give has ended (a loaded API server)
        lease.renew = () -> lease.later(Duration.ofMillis(slow[0] ? 900 : 1), true);
        LeaseKeeper keeper = keeper(lease, duration, Duration.ofSeconds(30));
        ticker.advance(Duration.ofMillis(500));
        assertTrue(events.stream().anyMatch(e -> e.contains("not renewed within its validity")), events.toString());
        Future<Void> waiting = keeper.whenHeld();
        // late answers arrive while it waits (each renewal is sent after the previous answer): none may end the wait
        int seen = lease.renewals;
        ticker.advance(Duration.ofSeconds(3));
        assertTrue(lease.renewals >= seen + 3, "renewals: " + lease.renewals);
        assertFalse(waiting.isComplete(), "a late renewal ended the wait of a run whose Lease was never lost: " + events);
        slow[0] = false;
        ticker.advance(Duration.ofSeconds(1));
        assertTrue(waiting.succeeded(), events.toString());
        assertFalse(lost(), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.startsWith("rollout lock renewed again")), events.toString());
        assertEquals(1, keeper.lapses());
    }

    @Test
    void renewalsThatFailAreRetriedAndAHoldThatRecoversIsKept() {
        ScriptedLease lease = new ScriptedLease();
        int[] failures = {2};
        lease.renew = () -> failures[0]-- > 0 ? Future.failedFuture(new RuntimeException("500")) : Future.succeededFuture(true);
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(3));
        ticker.advance(Duration.ofSeconds(20));
        assertTrue(lease.renewals >= 4, "renewals: " + lease.renewals);
        assertFalse(lost(), events.toString());
        assertTrue(keeper.held());
    }

    @Test
    void anotherHolderEndsTheHoldAtTheNextRenewal() {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(3));
        assertTrue(events.contains("acquired"));
        lease.renew = () -> Future.succeededFuture(false);
        ticker.advance(Duration.ofSeconds(1));
        assertTrue(events.stream().anyMatch(e -> e.contains("another run holds it")), events.toString());
        assertFalse(keeper.held());
        assertFalse(keeper.whenHeld().succeeded());
    }

    @Test
    void anAcquireAnsweredAfterItsHoldWouldHaveEndedIsNotActedOn() {
        ScriptedLease lease = new ScriptedLease();
        Duration duration = Duration.ofMillis(500); // hold: 400 ms after the send
        lease.acquire = () -> lease.acquires == 1 ? lease.later(Duration.ofMillis(800), new LeaseLock.Attempt(true, "me"))
                : Future.succeededFuture(new LeaseLock.Attempt(true, "me"));
        keeper(lease, duration);
        ticker.advance(Duration.ofSeconds(3));
        assertTrue(events.contains("acquired"), events.toString());
        assertEquals(2, lease.acquires, "acted on an answer that came after its hold had ended: " + events);
    }

    @Test
    void aLeaseTakenByForceEndsTheHoldAtOnceNotAtTheNextRenewal() {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(30)); // the next renewal 10 s away
        Consumer<String> watcher = lease.watcher;
        watcher.accept("operator");
        assertTrue(events.stream().anyMatch(e -> e.contains("taken over by operator")), events.toString());
        assertFalse(keeper.held());
        assertEquals(0, lease.renewals, "noticed by a renewal, not by the watch");
        assertNull(lease.watcher, "the watch outlived the hold");
        assertEquals(0, ticker.pending(), "no timer left behind");
    }

    @Test
    void aConfirmationFindsADeletedLeaseAndEndsTheHold() {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(30));
        lease.holder = null; // deleted, and the watch has not told yet
        Future<Void> confirmed = keeper.confirm();
        assertTrue(confirmed.cause() instanceof GuardedPatch.Fenced, String.valueOf(confirmed.cause()));
        assertTrue(events.stream().anyMatch(x -> x.contains("the Lease was deleted")), events.toString());
        assertFalse(keeper.held());
    }

    @Test
    void aConfirmationOfALeaseStillOursPasses() {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(30));
        assertTrue(keeper.confirm().succeeded());
        assertTrue(keeper.held());
    }

    @Test
    void anEndedRunIgnoresTheLeaseAndReleasesWhatItHeld() {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(10));
        keeper.stopRenewing();
        done = true;
        ticker.advance(Duration.ofSeconds(30));
        assertEquals(0, lease.renewals);
        assertFalse(lost(), "an ended run's hold just runs out");
        assertTrue(keeper.release().succeeded());
        assertEquals(0, ticker.pending());
    }

    /** Every permitted effect type reaches a branch of its own in the runner, none its loud final one. */
    @Test
    void everyPermittedEffectTypeIsCarriedOut() {
        List<LeaseEffect> effects = OneOfEach.of(LeaseEffect.class, type -> type == Duration.class ? Duration.ofSeconds(1)
                : type == LeaseEffect.Timer.class ? LeaseEffect.Timer.RENEW : type == String.class ? "x"
                : type == dev.crifresh.coordinator.base.ProgressListener.Level.class ? dev.crifresh.coordinator.base.ProgressListener.Level.WARN : null);
        assertEquals(OneOfEach.permitted(LeaseEffect.class).size(), effects.size());
        for (LeaseEffect effect : effects) {
            LeaseKeeper keeper = keeper(new ScriptedLease(), Duration.ofSeconds(10));
            try {
                keeper.carryOut(effect);
            } catch (IllegalStateException e) {
                throw new AssertionError("LeaseKeeper does not carry out " + effect.getClass().getSimpleName(), e);
            }
        }
    }
}
