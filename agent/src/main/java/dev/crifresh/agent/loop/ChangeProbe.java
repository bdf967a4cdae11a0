package dev.crifresh.agent.loop;

import dev.crifresh.agent.host.ProcessScan;
import dev.crifresh.agent.host.ProcessScanner;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.ProcessSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The cheap periodic check between evaluations: did the set of matching processes (pid, start ticks)
 * change — the tracked containerd exited or restarted, a second one appeared — did any watched file's mtime or size change (a safety net for file events
 * the watcher missed)? Blocking file I/O: call it on a worker thread.
 */
final class ChangeProbe {
    private final WatchGlobs globs;
    private final ProcessScanner scanner;
    private final ContainerdMatcher matcher;

    /** What the last evaluation was based on; captured before that evaluation read anything. */
    record Baseline(Map<String, String> files, List<ProcessSample> candidates) {
        Baseline {
            files = Map.copyOf(files);
            candidates = List.copyOf(candidates);
        }
    }

    ChangeProbe(WatchGlobs globs, ProcessScanner scanner, ContainerdMatcher matcher) {
        this.globs = globs;
        this.scanner = scanner;
        this.matcher = matcher;
    }

    /** mtime and size of every watched file, keyed by node path. */
    Map<String, String> fileSignature() {
        Map<String, String> signature = new TreeMap<>();
        WatchGlobs.Expansion expansion = globs.expand();
        expansion.unlistable().forEach(f -> signature.put(f.path(), "unlistable"));
        for (String path : expansion.paths()) {
            try {
                BasicFileAttributes a = Files.readAttributes(globs.onHost(path), BasicFileAttributes.class);
                signature.put(path, a.isRegularFile() ? a.lastModifiedTime() + "/" + a.size() : "not a file");
            } catch (IOException e) {
                signature.put(path, "unreadable: " + e.getClass().getSimpleName());
            }
        }
        return signature;
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
        if (!fileSignature().equals(baseline.files())) {
            return Optional.of("a watched file's mtime or size changed");
        }
        return Optional.empty();
    }

    private static List<String> identities(List<ProcessSample> samples) {
        return samples.stream().map(s -> s.pid() + "@" + s.startTicks()).toList();
    }
}
