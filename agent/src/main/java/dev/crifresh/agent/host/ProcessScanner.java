package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.ProcessSample;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Finds processes by command line under a proc root ({@code <procRoot>/[0-9]*}/{@code cmdline} and
 * {@code stat}). Processes that exit while being read are skipped: they are not running containerd.
 */
public final class ProcessScanner {
    private final Path procRoot;

    public ProcessScanner(Path procRoot) {
        this.procRoot = procRoot;
    }

    /**
     * Every process whose command line the matcher accepts, sorted by pid.
     *
     * @throws IOException when the proc root itself cannot be listed
     */
    public List<ProcessSample> scan(ContainerdMatcher matcher) throws IOException {
        List<ProcessSample> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(procRoot, ProcessScanner::isPidDir)) {
            for (Path dir : entries) {
                sample(Long.parseLong(dir.getFileName().toString()), matcher).ifPresent(found::add);
            }
        }
        found.sort(Comparator.comparingLong(ProcessSample::pid));
        return found;
    }

    /** The start ticks of a pid now, or empty when it no longer exists (or cannot be read). */
    public Optional<Long> startTicks(long pid) {
        try {
            return Optional.of(readStartTicks(pid));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private Optional<ProcessSample> sample(long pid, ContainerdMatcher matcher) {
        try {
            List<String> cmdline = readCmdline(pid);
            if (cmdline.isEmpty() || !matcher.matches(cmdline)) {
                return Optional.empty();
            }
            // Reading stat on both sides of cmdline guards against the pid being reused in between.
            long before = readStartTicks(pid);
            List<String> again = readCmdline(pid);
            long after = readStartTicks(pid);
            if (before != after || !again.equals(cmdline)) {
                return Optional.empty();
            }
            return Optional.of(new ProcessSample(pid, after, cmdline));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private List<String> readCmdline(long pid) throws IOException {
        byte[] raw = Files.readAllBytes(procRoot.resolve(Long.toString(pid)).resolve("cmdline"));
        return splitNul(raw);
    }

    private long readStartTicks(long pid) throws IOException {
        String stat = Files.readString(procRoot.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
        return ProcStat.startTicks(stat);
    }

    /** argv from a NUL-separated {@code cmdline}; a trailing NUL does not add an empty argument. */
    static List<String> splitNul(byte[] raw) {
        int end = raw.length;
        if (end > 0 && raw[end - 1] == 0) {
            end--;
        }
        if (end == 0) {
            return List.of();
        }
        return List.of(new String(raw, 0, end, StandardCharsets.UTF_8).split("\0", -1));
    }

    private static boolean isPidDir(Path p) {
        String name = p.getFileName().toString();
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
