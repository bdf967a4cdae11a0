package dev.crifresh.sim.kube;

import io.fabric8.mockwebserver.http.Dispatcher;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Extra paths the simulated cluster's API server answers before the Kubernetes API: a wrapper around its
 * dispatcher (the {@code serve} command's control endpoint).
 */
public record ApiOptions(UnaryOperator<Dispatcher> routes) {
    public static final ApiOptions DEFAULT = new ApiOptions(UnaryOperator.identity());

    public ApiOptions {
        Objects.requireNonNull(routes, "routes");
    }
}
