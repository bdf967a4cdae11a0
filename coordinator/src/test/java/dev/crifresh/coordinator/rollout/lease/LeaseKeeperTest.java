package dev.crifresh.coordinator.rollout.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.kube.LeaseLock;
import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import dev.crifresh.mockapi.testing.Poll;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Lease as a fence: a hold ends at send time + duration − margin, whatever the answers do. */
class LeaseKeeperTest {
    private final Vertx vertx = Vertx.vertx();
    private final Context context = vertx.getOrCreateContext();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicBoolean done = new AtomicBoolean();

    @AfterEach
    void close() {
        vertx.close();
    }

    /** A Lease whose answers the test decides. */
    private static final class ScriptedLease implements LeaseLock {
        Supplier<Future<Attempt>> acquire = () -> Future.succeededFuture(new Attempt(true, "me"));
        Supplier<Future<Boolean>> renew = () -> Future.succeededFuture(true);
        final AtomicInteger acquires = new AtomicInteger();
        final AtomicInteger renewals = new AtomicInteger();

        @Override
        public Future<Attempt> tryAcquire() {
            acquires.incrementAndGet();
            return acquire.get();
        }

        @Override
        public Future<Boolean> renew() {
            renewals.incrementAndGet();
            return renew.get();
        }

        @Override
        public Future<Void> release() {
            return Future.succeededFuture();
        }

        /** What a read of the Lease finds. */
        volatile String holder = "me";
        /** The watch's listener, once the keeper started it. */
        volatile java.util.function.Consumer<String> watcher;

        @Override
        public Future<String> holder() {
            return Future.succeededFuture(holder);
        }

        @Override
        public Future<Watch> watch(java.util.function.Consumer<String> changed) {
            watcher = changed;
            changed.accept(holder);
            return Future.succeededFuture(() -> watcher = null);
        }
    }

    private LeaseKeeper keeper(ScriptedLease lease, Duration duration) {
        return keeper(lease, duration, Duration.ZERO);
    }

    private LeaseKeeper keeper(ScriptedLease lease, Duration duration, Duration outageBudget) {
        CoordinatorSettings settings = CoordinatorSettings.defaults().withLeaseDuration(duration).withLockTimeout(Duration.ofSeconds(20))
                .withApiOutageBudget(outageBudget);
        LeaseKeeper[] keeper = new LeaseKeeper[1];
        context.runOnContext(v -> {
            keeper[0] = new LeaseKeeper(vertx, lease, settings, events::add, new LeaseKeeper.LockListener() {
                @Override
                public boolean done() {
                    return done.get();
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
            keeper[0].acquire();
        });
        Poll.until(Duration.ofSeconds(10), "the keeper", () -> keeper[0] != null);
        return keeper[0];
    }

    private boolean heldNow(LeaseKeeper keeper) throws Exception {
        Promise<Boolean> p = Promise.promise();
        context.runOnContext(v -> p.complete(keeper.held()));
        return p.future().toCompletionStage().toCompletableFuture().get();
    }

    @Test
    void aRenewalThatHangsEndsTheHoldAtValidUntilWhileItIsStillInFlight() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        Promise<Boolean> hanging = Promise.promise();
        lease.renew = hanging::future; // never answers
        LeaseKeeper keeper = keeper(lease, Duration.ofMillis(600));
        Poll.until(Duration.ofSeconds(10), "the Lease", () -> events.contains("acquired"));
        Poll.until(Duration.ofSeconds(10), "the loss", () -> events.stream().anyMatch(e -> e.startsWith("lost: ")));
        assertFalse(hanging.future().isComplete(), "the renewal was still in flight");
        assertFalse(heldNow(keeper));
        assertTrue(events.stream().anyMatch(e -> e.contains("not renewed within its validity")), events.toString());
    }

    @Test
    void duringAnAllowedOutageARenewalAnsweredAfterItsHoldEndedKeepsTheRunWaitingInsteadOfFencingIt() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        Duration duration = Duration.ofMillis(600); // hold: 480 ms after the send
        AtomicBoolean slow = new AtomicBoolean(true);
        lease.renew = () -> {
            Promise<Boolean> p = Promise.promise();
            // the first renewals are answered only after the hold they would give has ended (a loaded API server)
            vertx.setTimer(slow.get() ? 900 : 1, id -> p.complete(true));
            return p.future();
        };
        LeaseKeeper keeper = keeper(lease, duration, Duration.ofSeconds(30));
        Poll.until(Duration.ofSeconds(10), "the lapse", () -> events.stream().anyMatch(e -> e.contains("not renewed within its validity")));
        Promise<Future<Void>> asked = Promise.promise();
        context.runOnContext(v -> asked.complete(keeper.whenHeld()));
        Future<Void> waiting = asked.future().toCompletionStage().toCompletableFuture().get();
        // late answers arrive while it waits (each renewal is sent after the previous answer): none may end the wait
        int seen = lease.renewals.get();
        Poll.until(Duration.ofSeconds(10), "three more late renewals", () -> lease.renewals.get() >= seen + 3);
        assertFalse(waiting.failed(), "a late renewal fenced a run whose Lease was never lost: " + waiting.cause() + " " + events);
        slow.set(false);
        Poll.until(Duration.ofSeconds(10), "the hold back", () -> waiting.succeeded());
        assertTrue(events.stream().noneMatch(e -> e.startsWith("lost: ")), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.startsWith("rollout lock renewed again")), events.toString());
    }

    @Test
    void renewalsThatFailAreRetriedAndAHoldThatRecoversIsKept() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        AtomicInteger failures = new AtomicInteger(2);
        lease.renew = () -> failures.getAndDecrement() > 0 ? Future.failedFuture(new RuntimeException("500")) : Future.succeededFuture(true);
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(3));
        Poll.until(Duration.ofSeconds(20), "a renewal after the failures", () -> lease.renewals.get() >= 4);
        assertTrue(events.stream().noneMatch(e -> e.startsWith("lost: ")), events.toString());
        assertTrue(heldNow(keeper));
    }

    @Test
    void anotherHolderEndsTheHoldAtTheNextRenewal() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(3));
        Poll.until(Duration.ofSeconds(10), "the Lease", () -> events.contains("acquired"));
        lease.renew = () -> Future.succeededFuture(false);
        Poll.until(Duration.ofSeconds(10), "the loss", () -> events.stream().anyMatch(e -> e.startsWith("lost: ")));
        assertTrue(events.stream().anyMatch(e -> e.contains("another run holds it")), events.toString());
        assertFalse(heldNow(keeper));
    }

    @Test
    void anAcquireAnsweredAfterItsHoldWouldHaveEndedIsNotActedOn() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        Duration duration = Duration.ofMillis(500); // hold: 400 ms after the send
        lease.acquire = () -> {
            Promise<LeaseLock.Attempt> p = Promise.promise();
            if (lease.acquires.get() == 1) {
                vertx.setTimer(800, id -> p.complete(new LeaseLock.Attempt(true, "me")));
            } else {
                p.complete(new LeaseLock.Attempt(true, "me"));
            }
            return p.future();
        };
        keeper(lease, duration);
        Poll.until(Duration.ofSeconds(10), "the Lease", () -> events.contains("acquired"));
        assertEquals(2, lease.acquires.get(), "acted on an answer that came after its hold had ended: " + events);
    }

    @Test
    void aLeaseTakenByForceEndsTheHoldAtOnceNotAtTheNextRenewal() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(30)); // the next renewal 10 s away
        Poll.until(Duration.ofSeconds(10), "the watch", () -> lease.watcher != null);
        java.util.function.Consumer<String> watcher = lease.watcher;
        context.runOnContext(v -> watcher.accept("operator"));
        Poll.until(Duration.ofSeconds(5), "the loss", () -> events.stream().anyMatch(e -> e.startsWith("lost: ")));
        assertTrue(events.stream().anyMatch(e -> e.contains("taken over by operator")), events.toString());
        assertFalse(heldNow(keeper));
        assertEquals(0, lease.renewals.get(), "noticed by a renewal, not by the watch");
        assertEquals(null, lease.watcher, "the watch outlived the hold");
    }

    @Test
    void aConfirmationFindsADeletedLeaseAndEndsTheHold() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(30));
        Poll.until(Duration.ofSeconds(10), "the Lease", () -> events.contains("acquired"));
        lease.holder = null; // deleted, and the watch has not told yet
        Promise<Throwable> confirmed = Promise.promise();
        context.runOnContext(v -> keeper.confirm().onComplete(ar -> confirmed.complete(ar.failed() ? ar.cause() : null)));
        Throwable e = confirmed.future().toCompletionStage().toCompletableFuture().get();
        assertTrue(e instanceof GuardedPatch.Fenced, String.valueOf(e));
        assertTrue(events.stream().anyMatch(x -> x.contains("the Lease was deleted")), events.toString());
        assertFalse(heldNow(keeper));
    }

    @Test
    void aConfirmationOfALeaseStillOursPasses() throws Exception {
        ScriptedLease lease = new ScriptedLease();
        LeaseKeeper keeper = keeper(lease, Duration.ofSeconds(30));
        Poll.until(Duration.ofSeconds(10), "the Lease", () -> events.contains("acquired"));
        Promise<Throwable> confirmed = Promise.promise();
        context.runOnContext(v -> keeper.confirm().onComplete(ar -> confirmed.complete(ar.failed() ? ar.cause() : null)));
        assertEquals(null, confirmed.future().toCompletionStage().toCompletableFuture().get());
        assertTrue(heldNow(keeper));
    }
}
