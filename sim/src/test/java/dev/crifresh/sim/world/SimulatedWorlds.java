package dev.crifresh.sim.world;

import dev.crifresh.coordinator.kube.UnhandledErrors;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** A test's Vert.x and the simulated worlds it builds on it, closed after each test (worlds first). */
final class SimulatedWorlds implements BeforeEachCallback, AfterEachCallback {
    private final List<SimulatedWorld> worlds = new ArrayList<>();
    private Vertx vertx;

    Vertx vertx() {
        return vertx;
    }

    /** Closes {@code world} after the test. */
    SimulatedWorld track(SimulatedWorld world) {
        worlds.add(world);
        return world;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        vertx = UnhandledErrors.on(Vertx.vertx());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        worlds.forEach(SimulatedWorld::close);
        worlds.clear();
        vertx.close().await();
    }
}
