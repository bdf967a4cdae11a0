package dev.crifresh.sim.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.testing.Poll;
import dev.crifresh.sim.base.SimEvent;
import dev.crifresh.sim.kube.ApiOptions;
import dev.crifresh.sim.scenario.ScenarioReader;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The simulation's end: nothing calls the API server after it stops, so a clean run ends without a
 * {@code SIMULATION ERROR} (a platform error event). A kubelet heartbeat is held in the API server until the world's
 * close waits for its threads; it must then land, not be interrupted or cut off.
 */
class TeardownTest {
    @RegisterExtension
    final SimulatedWorlds worlds = new SimulatedWorlds();

    @Test
    void aKubeletHeartbeatInFlightWhenTheWorldClosesLandsAndNoErrorIsReported() throws Exception {
        HeldStatusPatch held = new HeldStatusPatch();
        SimulatedWorld world = SimulatedWorld.create(ScenarioReader.parse("""
                nodes:
                  - {name: w-1, marker: current, pods: 0}
                """), worlds.vertx(), (api, keys) -> new RecordingLauncher(), new ApiOptions(held::wrap));
        Thread closer = new Thread(world::close, "test-closer");
        try {
            held.armed.set(true);
            // the first status patch after the world is built is a heartbeat (no agent runs; nothing rebooted)
            assertTrue(held.arrived.await(30, TimeUnit.SECONDS), "no kubelet heartbeat within 30 s");
            closer.start();
            // released once the close waits for the simulation's threads (or ended without waiting for them)
            Poll.until(Duration.ofSeconds(30), "the close to wait for the simulation's threads", () -> stack(closer),
                    s -> s.contains("awaitTermination") || !closer.isAlive());
        } finally {
            held.release.countDown();
        }
        closer.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(closer.isAlive(), "the close did not end");
        List<SimEvent> errors = world.events().stream().filter(e -> e.kind() == SimEvent.Kind.PLATFORM_ERROR).toList();
        assertEquals(List.of(), errors);
        assertTrue(held.answered.get(), "the held heartbeat was not answered");
    }

    /** The thread's stack, one frame a line. */
    private static String stack(Thread thread) {
        return Arrays.stream(thread.getStackTrace()).map(f -> "\n  " + f).reduce("", String::concat);
    }

    /** Holds the first {@code PATCH nodes/NAME/status} once armed, until released; passes everything else through. */
    private static final class HeldStatusPatch {
        final AtomicBoolean armed = new AtomicBoolean();
        final CountDownLatch arrived = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean answered = new AtomicBoolean();

        Dispatcher wrap(Dispatcher inner) {
            return new Dispatcher() {
                @Override
                public MockResponse dispatch(RecordedRequest request) {
                    boolean hold = "PATCH".equals(request.getMethod()) && request.getPath() != null
                            && request.getPath().endsWith("/status") && armed.compareAndSet(true, false);
                    if (hold) {
                        arrived.countDown();
                        try {
                            release.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    MockResponse response = inner.dispatch(request);
                    if (hold) {
                        answered.set(response != null && response.code() < 300);
                    }
                    return response;
                }

                @Override
                public void shutdown() {
                    inner.shutdown();
                }

                @Override
                public void releaseResources() {
                    inner.releaseResources();
                }
            };
        }
    }
}
