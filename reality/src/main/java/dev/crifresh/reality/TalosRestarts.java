package dev.crifresh.reality;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Talos' service loop for a containerd that may refuse its config: the real binary is started again as soon as it
 * exits (Talos waits 5 s, siderolabs/talos {@code services/cri.go}, from source only), until {@link #close()}. Records
 * which processes refused (exited on their own at start) and which served (stayed up and were stopped here).
 */
public final class TalosRestarts implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Set<Long> refused = ConcurrentHashMap.newKeySet();
    private final List<Long> served = Collections.synchronizedList(new ArrayList<>());
    private final Thread loop;

    private TalosRestarts(CriNode node, ContainerdGeneration generation) {
        loop = new Thread(() -> {
            while (!stop.get()) {
                try {
                    RealContainerd c = RealContainerd.start(node, generation);
                    served.add(c.pid());
                    c.close();
                } catch (RealContainerd.Exited e) {
                    refused.add(e.pid());
                }
            }
        }, "containerd-" + generation.name() + "-restarts");
    }

    public static TalosRestarts start(CriNode node, ContainerdGeneration generation) {
        TalosRestarts restarts = new TalosRestarts(node, generation);
        restarts.loop.start();
        return restarts;
    }

    /** The pids of the processes that exited on their own at start. */
    public Set<Long> refused() {
        return refused;
    }

    /** The pids of the processes that started serving (stopped here again at once). */
    public List<Long> served() {
        return served;
    }

    /** Stops restarting and waits for the last start to end. */
    @Override
    public void close() {
        stop.set(true);
        try {
            loop.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the restart loop ended", e);
        }
    }
}
