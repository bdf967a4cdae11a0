package dev.crifresh.coordinator.gate.block;

import io.vertx.core.Future;
import java.util.List;

/** The names of the alerts firing now. Completes on the run's context. */
@FunctionalInterface
public interface AlertSource {
    Future<List<String>> firing();
}
