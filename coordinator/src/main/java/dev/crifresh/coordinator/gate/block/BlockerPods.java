package dev.crifresh.coordinator.gate.block;

import io.vertx.core.Future;
import java.util.List;

/** The pods matching {@code --block-on-pod-selector} that run on a node ({@code namespace/name}). */
@FunctionalInterface
public interface BlockerPods {
    Future<List<String>> on(String node);
}
