package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.fixture.OneOfEach;
import dev.crifresh.coordinator.kube.PodOps;
import dev.crifresh.coordinator.kube.WriteGate;
import dev.crifresh.coordinator.rollout.api.ApiRetry;
import dev.crifresh.coordinator.rollout.api.Fence;
import dev.crifresh.coordinator.fixture.Unused;
import dev.crifresh.coordinator.kube.NodeOps;
import io.fabric8.kubernetes.api.model.Pod;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The drain's runner on a {@link ManualTicker} with pods in memory: stale answers, the fence, every effect type. */
class DrainRunnerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final ManualTicker ticker = new ManualTicker();
    private final List<Pod> pods = new ArrayList<>(List.of(DrainStepTest.pod("web-1", "u1")));
    private final List<Promise<PodOps.Eviction>> evictions = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();
    private boolean mayWrite = true;
    private String end;

    @Test
    void anEvictionAnsweredAfterTheDrainStartedAgainIsDropped() {
        DrainRunner drain = drain();
        drain.start();
        assertEquals(1, evictions.size());
        drain.start(); // again: a new epoch, the first eviction still in flight
        assertEquals(2, evictions.size());
        evictions.get(0).complete(PodOps.Eviction.EVICTED);
        DrainState.Book book = assertInstanceOf(DrainState.Listing.class, drain.state()).book();
        assertEquals(Set.of(), book.evicted(), "the earlier drain's answer was taken");
        evictions.get(1).complete(PodOps.Eviction.EVICTED);
        assertEquals(Set.of("u1"), assertInstanceOf(DrainState.Listing.class, drain.state()).book().evicted());
        pods.clear();
        ticker.advance(Duration.ofSeconds(1));
        assertEquals("drained", end);
        assertEquals(0, ticker.pending(), "no timer left behind");
    }

    @Test
    void nothingIsEvictedWhileTheRunMayNotWriteAndItIsAskedAgainOnceItMay() {
        mayWrite = false;
        DrainRunner drain = drain();
        drain.start();
        assertEquals(0, evictions.size());
        assertEquals(Set.of(), assertInstanceOf(DrainState.Listing.class, drain.state()).book().evicting());
        mayWrite = true;
        ticker.advance(Duration.ofMillis(500)); // the next list
        assertEquals(1, evictions.size());
    }

    @Test
    void answersOnceTheRollLeftItsDrainStepAreDropped() {
        boolean[] draining = {true};
        DrainRunner drain = new DrainRunner(ports(), "w1", () -> draining[0], lines::add, () -> end = "drained", why -> end = "failed: " + why);
        drain.start();
        draining[0] = false;
        ticker.advance(TIMEOUT);
        assertEquals(null, end, "the deadline of a roll that left its drain step ends nothing");
    }

    /** Every permitted effect type reaches a branch of its own in the runner, none its loud final one. */
    @Test
    void everyPermittedEffectTypeIsCarriedOut() {
        List<DrainEffect> effects = OneOfEach.of(DrainEffect.class, type -> type == Duration.class ? Duration.ofSeconds(1)
                : type == DrainEffect.Timer.class ? DrainEffect.Timer.RELIST : type == List.class ? List.of() : type == String.class ? "x" : null);
        assertEquals(OneOfEach.permitted(DrainEffect.class).size(), effects.size());
        for (DrainEffect effect : effects) {
            try {
                drain().carryOut(effect);
            } catch (IllegalStateException e) {
                throw new AssertionError("DrainRunner does not carry out " + effect.getClass().getSimpleName(), e);
            }
        }
        assertTrue(lines.contains("x"));
    }

    private DrainRunner drain() {
        return new DrainRunner(ports(), "w1", () -> end == null, lines::add, () -> end = "drained", why -> end = "failed: " + why);
    }

    private RollPorts ports() {
        RollPorts.Reboot noReboot = node -> {
            throw new AssertionError("a drain requests no reboot");
        };
        Fence fence = Fence.of(() -> mayWrite);
        return new RollPorts(RollSettings.of(CoordinatorSettings.builder().drainTimeout(TIMEOUT).build()), Unused.of(NodeOps.class), new Pods(), noReboot,
                fence, new ApiRetry(ticker, fence), ticker, Clock.systemUTC());
    }

    /** The node's pods in memory; the watch cannot be started; evictions answer when the test completes them. */
    private final class Pods implements PodOps {
        @Override
        public PodOps gated(WriteGate gate) {
            return this; // in memory, no worker thread: the roll's own fence checks are what the test exercises
        }

        @Override
        public Future<List<Pod>> podsOn(String node) {
            return Future.succeededFuture(List.copyOf(pods));
        }

        @Override
        public Future<PodWatch> watchPodsOn(String node, Runnable changed) {
            return Future.failedFuture("watch refused");
        }

        @Override
        public Future<Eviction> evict(String namespace, String name) {
            Promise<Eviction> p = Promise.promise();
            evictions.add(p);
            return p.future();
        }
    }
}
