package dev.crifresh.reality;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * Processes on this machine the agent would take for the CRI containerd (comm {@code containerd}, Talos's flags), read
 * from /proc: the suite's own, another suite's, or another module's stand-ins (the agent tests' fake containerds
 * and benchmarks take no machine lock, so a case waits for them to go before it starts).
 */
final class CriProcesses {
    private CriProcesses() {
    }

    /**
     * Waits (up to 10 minutes) until no process outside this JVM's containerds has the CRI command line: a
     * suite on an older harness (no {@link MachineLock}) may still be running on a shared machine.
     */
    static void awaitNoneForeign(Collection<Long> ours) {
        AtomicBoolean said = new AtomicBoolean();
        Waits.until(Duration.ofMinutes(10), "other CRI containerds on this machine to stop", () -> {
            List<Long> foreign = new ArrayList<>(matching());
            foreign.removeAll(ours);
            if (foreign.isEmpty()) {
                return Boolean.TRUE;
            }
            if (said.compareAndSet(false, true)) {
                System.out.println("reality suite: waiting for other CRI containerds on this machine to stop: " + foreign);
            }
            return null;
        });
    }

    static List<Long> matching() {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    // as the agent finds it: comm "containerd" (argv[0] may be a path, as Talos' "/bin/containerd" and
                    // the agent tests' stand-ins have it) and Talos' config flag
                    String comm = Files.readString(p.resolve("comm"), StandardCharsets.UTF_8).strip();
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (comm.equals("containerd") && cmdline.contains("\0--config\0/etc/cri/containerd.toml")) {
                        pids.add(Long.parseLong(name));
                    }
                } catch (IOException e) {
                    // The process exited while listed.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list /proc", e);
        }
        return pids;
    }
}
