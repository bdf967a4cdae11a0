package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Nodes that joined the cluster while the run was under way (an autoscaler's scale-out, a replaced
 * node). Such a node's agent needs a moment to attest its first boot, and an unattested node would be
 * classified unknown and rebooted for nothing — the very waste crifresh exists to avoid. So each joined
 * node is waited for, up to {@code --attest-timeout}, until it attests fresh or stale; then, or when its
 * time is up, it is handed on with its latest classification (unknown and config-pending included) to
 * be decided like any other node. Every call and callback happens on the run's context.
 */
final class JoinedNodes {
    private final Ticker ticker;
    private final Duration timeout;
    private final Consumer<String> onSettled;
    private final Map<String, Long> waiting = new HashMap<>();
    private final Set<String> joined = new LinkedHashSet<>();

    /** @param onSettled a joined node is ready to be decided (it attested, or its wait timed out): its name */
    JoinedNodes(Ticker ticker, Duration timeout, Consumer<String> onSettled) {
        this.ticker = ticker;
        this.timeout = timeout;
        this.onSettled = onSettled;
    }

    /** Whether this node was seen joining (waited for or already handed on). */
    boolean known(String name) {
        return joined.contains(name);
    }

    boolean waiting(String name) {
        return waiting.containsKey(name);
    }

    boolean noneWaiting() {
        return waiting.isEmpty();
    }

    /** Every node that joined, in the order they were seen. */
    List<String> all() {
        return new ArrayList<>(joined);
    }

    /** The nodes still waited for. */
    List<String> waitingFor() {
        return new ArrayList<>(waiting.keySet());
    }

    /** A node joined: wait for its attestation. */
    void add(String name) {
        if (!joined.add(name)) {
            return;
        }
        waiting.put(name, ticker.setTimer(timeout, () -> {
            if (waiting.remove(name) != null) {
                onSettled.accept(name);
            }
        }));
    }

    /** Its latest classification: a fresh or stale attestation ends the wait. */
    void check(Classification c) {
        if (waiting.containsKey(c.name()) && (c.verdict() == NodeVerdict.FRESH || c.verdict() == NodeVerdict.STALE)) {
            ticker.cancelTimer(waiting.remove(c.name()));
            onSettled.accept(c.name());
        }
    }

    /** The node was deleted while waited for; true when it was. */
    boolean remove(String name) {
        Long timer = waiting.remove(name);
        if (timer != null) {
            ticker.cancelTimer(timer);
        }
        return timer != null;
    }

    /** The run ends: stop every wait (the nodes still waited for are reported not attempted). */
    void cancel() {
        waiting.values().forEach(ticker::cancelTimer);
        waiting.clear();
    }
}
