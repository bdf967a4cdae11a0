package dev.crifresh.sim.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording of execution samples (every 10 ms per running thread) over one case, and its summary:
 * samples per thread group, and for the groups asked for the methods that were on top of the stack (self
 * time) and the project's own methods anywhere on the stack (inclusive time). The recording is kept for
 * {@code jfr print --events jdk.ExecutionSample} / {@code jfr summary}.
 */
final class JfrProfile implements AutoCloseable {
    private final Recording recording = new Recording();
    private final Path file;

    JfrProfile(Path file) {
        this.file = file;
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
        recording.enable("jdk.GarbageCollection");
        recording.start();
    }

    @Override
    public void close() throws IOException {
        recording.stop();
        recording.dump(file);
        recording.close();
    }

    /** Prints the summary of the dumped recording. */
    void print(Function<String, String> group, List<String> detailed, int top) throws IOException {
        Map<String, Integer> perGroup = new TreeMap<>();
        Map<String, Map<String, Integer>> self = new HashMap<>();
        Map<String, Map<String, Integer>> own = new HashMap<>();
        Map<String, Integer> samplesOf = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (!"jdk.ExecutionSample".equals(e.getEventType().getName())) {
                continue;
            }
            String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
            String g = group.apply(thread == null ? "?" : thread);
            perGroup.merge(g, 1, Integer::sum);
            RecordedStackTrace stack = e.getStackTrace();
            if (!detailed.contains(g) || stack == null || stack.getFrames().isEmpty()) {
                continue;
            }
            samplesOf.merge(g, 1, Integer::sum);
            self.computeIfAbsent(g, k -> new HashMap<>()).merge(name(stack.getFrames().get(0)), 1, Integer::sum);
            Set<String> counted = new HashSet<>();
            for (RecordedFrame f : stack.getFrames()) {
                String n = name(f);
                if (n.startsWith("dev.crifresh.") && counted.add(n)) {
                    own.computeIfAbsent(g, k -> new HashMap<>()).merge(n, 1, Integer::sum);
                }
            }
        }
        int total = perGroup.values().stream().mapToInt(Integer::intValue).sum();
        System.out.printf(Locale.ROOT, "    JFR %s: %d execution samples (10 ms period)%n", file, total);
        perGroup.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .forEach(en -> System.out.printf(Locale.ROOT, "      %-22s %6d samples (%4.1f %%)%n", en.getKey(),
                        en.getValue(), 100.0 * en.getValue() / Math.max(1, total)));
        for (String g : detailed) {
            int n = samplesOf.getOrDefault(g, 0);
            System.out.printf(Locale.ROOT, "    %s, top of stack (self):%n", g);
            topOf(self.getOrDefault(g, Map.of()), n, top);
            System.out.printf(Locale.ROOT, "    %s, crifresh methods on the stack (inclusive):%n", g);
            topOf(own.getOrDefault(g, Map.of()), n, top);
        }
    }

    private static void topOf(Map<String, Integer> counts, int of, int top) {
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
                .forEach(en -> System.out.printf(Locale.ROOT, "      %5d (%4.1f %%) %s%n", en.getValue(),
                        100.0 * en.getValue() / Math.max(1, of), en.getKey()));
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }
}
