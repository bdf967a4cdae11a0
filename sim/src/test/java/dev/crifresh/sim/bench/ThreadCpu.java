package dev.crifresh.sim.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * CPU time per thread group and heap over one measured interval: samples every thread's CPU time every 100 ms
 * (a thread that ends between samples keeps what the last sample saw) and the heap after each collection.
 * Groups are named by {@code group(threadName)}.
 */
final class ThreadCpu implements AutoCloseable {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private record Seen(String name, long startNanos, long lastNanos) {
    }

    private final Function<String, String> group;
    private final Map<Long, Seen> seen = new HashMap<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-sampler");
        t.setDaemon(true);
        return t;
    });
    private long peakHeap;
    private long peakLiveHeap;
    private final long processStart;

    ThreadCpu(Function<String, String> group) {
        this.group = group;
        this.processStart = processCpuNanos();
        sample(true);
        sampler.scheduleAtFixedRate(() -> sample(false), 100, 100, TimeUnit.MILLISECONDS);
    }

    private synchronized void sample(boolean first) {
        long[] ids = THREADS.getAllThreadIds();
        ThreadInfo[] infos = THREADS.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long cpu = THREADS.getThreadCpuTime(ids[i]);
            if (cpu < 0 || infos[i] == null) {
                continue;
            }
            Seen before = seen.get(ids[i]);
            // a thread first seen after the start counts from zero
            seen.put(ids[i], new Seen(infos[i].getThreadName(), before != null ? before.startNanos() : first ? cpu : 0, cpu));
        }
        long heap = 0;
        long live = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heap += pool.getUsage().getUsed();
                live += pool.getCollectionUsage() == null ? pool.getUsage().getUsed() : pool.getCollectionUsage().getUsed();
            }
        }
        peakHeap = Math.max(peakHeap, heap);
        peakLiveHeap = Math.max(peakLiveHeap, live);
    }

    /** Stops sampling; the figures stay readable. */
    @Override
    public void close() {
        sampler.shutdownNow();
        try {
            sampler.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sample(false);
    }

    /** CPU seconds per group, largest first; "process" is the whole JVM's (GC and JIT included). */
    synchronized Map<String, Double> seconds() {
        Map<String, Long> sums = new TreeMap<>();
        for (Seen s : seen.values()) {
            sums.merge(group.apply(s.name()), s.lastNanos() - s.startNanos(), Long::sum);
        }
        Map<String, Double> out = new LinkedHashMap<>();
        long process = processCpuNanos() - processStart;
        out.put("process", process / 1e9);
        // the JVM's own threads (JIT compilers, GC, VM thread) are not Java threads the MXBean lists
        sums.put("jvm (jit, gc)", process - sums.values().stream().mapToLong(Long::longValue).sum());
        sums.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> out.put(e.getKey(), e.getValue() / 1e9));
        return out;
    }

    synchronized long peakHeapBytes() {
        return peakHeap;
    }

    /** The largest heap seen right after a collection (the live set, roughly). */
    synchronized long peakLiveHeapBytes() {
        return peakLiveHeap;
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
