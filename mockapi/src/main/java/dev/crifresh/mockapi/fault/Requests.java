package dev.crifresh.mockapi.fault;

import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * Request matchers for {@link ClientFaults} rules. A matcher of your own must not call
 * {@link RecordedRequest#getUtf8Body()}: it consumes the body, and the store then sees an empty request;
 * use {@link #bodyContains(String)}.
 */
public final class Requests {
    private Requests() {
    }

    /** Calls on {@code coordination.k8s.io} Leases (get, create, update, delete). */
    public static Predicate<RecordedRequest> leases() {
        return r -> r.getPath() != null && r.getPath().contains("/apis/coordination.k8s.io/") && r.getPath().contains("/leases");
    }

    /** Requests whose path (query included) contains {@code fragment}. */
    public static Predicate<RecordedRequest> pathContains(String fragment) {
        return r -> r.getPath() != null && r.getPath().contains(fragment);
    }

    /** Requests with this HTTP method (GET, PATCH, …) whose path contains {@code fragment}. */
    public static Predicate<RecordedRequest> call(String method, String fragment) {
        return r -> method.equalsIgnoreCase(r.getMethod()) && r.getPath() != null && r.getPath().contains(fragment);
    }

    /** Requests whose body contains {@code fragment} (read without consuming it). */
    public static Predicate<RecordedRequest> bodyContains(String fragment) {
        return r -> r.getBody() != null && new String(r.getBody().getBytes(), StandardCharsets.UTF_8).contains(fragment);
    }
}
