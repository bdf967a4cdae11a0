package dev.crifresh.mockapi.fault;

import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The faults the mock API server injects into one client's requests (see {@link FaultDispatcher}).
 * Rules are checked in the order they were added; the first that matches decides. Thread-safe: a test
 * changes the rules while the client under test is running.
 */
public final class ClientFaults {
    /** What a matching request gets. */
    sealed interface Rule permits Fail, Delay, Gone {
        Predicate<RecordedRequest> which();
    }

    /**
     * Answered with {@code code} and a Kubernetes Status body; the store is not touched. {@code left} counts
     * the answers still to give (negative: no limit).
     */
    record Fail(Predicate<RecordedRequest> which, int code, AtomicInteger left) implements Rule {
        boolean take() {
            return left.get() < 0 || left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
        }
    }

    /** Served by the store, the answer's body held back for {@code delay} (the server does not block). */
    record Delay(Predicate<RecordedRequest> which, Duration delay) implements Rule {
    }

    /**
     * A watch that cannot be resumed: answered as kube-apiserver answers a watch from a resourceVersion it no
     * longer has — the watch opens, one {@code ERROR} event carries a Status 410 (Expired, "too old resource
     * version"), and the server closes it. A client must list again.
     */
    record Gone(Predicate<RecordedRequest> which) implements Rule {
    }

    private final List<Rule> rules = new CopyOnWriteArrayList<>();

    /** Answers matching requests with {@code code} (e.g. 500, 503, 429) without reaching the store. */
    public ClientFaults fail(Predicate<RecordedRequest> which, int code) {
        rules.add(new Fail(which, code, new AtomicInteger(-1)));
        return this;
    }

    /** Answers the next {@code times} matching requests with {@code code}; later ones pass. */
    public ClientFaults fail(Predicate<RecordedRequest> which, int code, int times) {
        rules.add(new Fail(which, code, new AtomicInteger(Math.max(0, times))));
        return this;
    }

    /** Serves matching requests normally but delays the body of the answer. */
    public ClientFaults delay(Predicate<RecordedRequest> which, Duration delay) {
        rules.add(new Delay(which, delay));
        return this;
    }

    /** Answers matching watch requests as expired ({@link Gone}): the client must list again. */
    public ClientFaults gone(Predicate<RecordedRequest> which) {
        rules.add(new Gone(which));
        return this;
    }

    /** Drops every rule: the client's requests pass again. */
    public void clear() {
        rules.clear();
    }

    Rule match(RecordedRequest request) {
        for (Rule r : rules) {
            if (r.which().test(request) && (!(r instanceof Fail f) || f.take())) {
                return r;
            }
        }
        return null;
    }
}
