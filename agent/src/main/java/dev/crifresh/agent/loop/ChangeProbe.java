package dev.crifresh.agent.loop;

import dev.crifresh.agent.host.ProcessScan;
import dev.crifresh.agent.host.ProcessScanner;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.common.evidence.ContainerdListener;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.ProcessSample;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cheap periodic check between evaluations: did the set of matching processes (pid, start ticks)
 * change — the tracked containerd exited or restarted, a second one appeared — did any change stamp of a
 * watched file or directory move (mtime, ctime, size, a symlink re-pointed: a safety net for file events
 * the watcher missed)? Blocking file I/O: call it on a worker thread.
 */
final class ChangeProbe {
    private final HostReader reader;
    private final ProcessScanner scanner;
    private final ContainerdMatcher matcher;

    /**
     * What the last evaluation was based on; the files captured before that evaluation read anything. {@code listener}:
     * what containerd's socket table showed it (null when not read).
     */
    record Baseline(Map<String, String> files, List<ProcessSample> candidates, ContainerdListener listener) {
        Baseline {
            files = Map.copyOf(files);
            candidates = List.copyOf(candidates);
        }
    }

    ChangeProbe(HostReader reader, ContainerdMatcher matcher) {
        this.reader = reader;
        this.scanner = reader.scanner();
        this.matcher = matcher;
    }

    /** Every change stamp of the evidence ({@link HostReader#stamps()}): ctimes included, so {@code touch -d} shows. */
    Map<String, String> fileSignature() {
        return reader.stamps();
    }

    /** Why a new evaluation is needed, or empty when nothing changed since the baseline. */
    Optional<String> changedSince(Baseline baseline) {
        // Rescan every time, also while one containerd is tracked: a second match must be noticed now.
        List<ProcessSample> before = baseline.candidates();
        List<ProcessSample> now;
        try {
            ProcessScan scan = scanner.scan(matcher);
            if (!scan.unreadable().isEmpty()) {
                return Optional.of("a possible containerd is unreadable: " + scan.unreadable().get(0));
            }
            now = scan.matched();
        } catch (IOException e) {
            return Optional.of("process list unreadable");
        }
        if (!identities(now).equals(identities(before))) {
            if (before.size() == 1 && now.stream().noneMatch(s -> s.pid() == before.get(0).pid())) {
                return Optional.of("containerd pid " + before.get(0).pid() + " exited");
            }
            return Optional.of("containerd candidates changed from " + identities(before) + " to " + identities(now));
        }
        // containerd binds its socket once it has loaded its config: one found still starting is evaluated again
        // at the first poll after it listens, not at the next heartbeat (and one that closed it, at once).
        ContainerdListener was = baseline.listener();
        if (was != null && was.address() != null && now.size() == 1) {
            ContainerdListener is = reader.listener(now.get(0).pid(), was.address());
            if (is.state() != was.state()) {
                return Optional.of("containerd pid " + now.get(0).pid() + (is.isListening() ? " now listens at "
                        : " no longer listens at ") + was.address());
            }
        }
        if (!fileSignature().equals(baseline.files())) {
            return Optional.of("a watched file's or directory's change stamps moved");
        }
        return Optional.empty();
    }

    private static List<String> identities(List<ProcessSample> samples) {
        return samples.stream().map(s -> s.pid() + "@" + s.startTicks()).toList();
    }
}
