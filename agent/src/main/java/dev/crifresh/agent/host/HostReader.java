package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.BootClock;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.evidence.WatchedFile;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads one {@link Observation} from a proc root and a host root. Blocking file I/O: call it on a
 * worker thread. Processes are read before the files, so any config write after containerd's start
 * is visible in the files read.
 */
public final class HostReader {
    private final ProcessScanner scanner;
    private final BootIdReader bootIds;
    private final BootClockSampler bootClock;
    private final WatchGlobs globs;
    private final ConfigFileReader files;
    private final ContainerdMatcher matcher;
    private final HostClock clock;

    public HostReader(Path procRoot, Path hostRoot, List<String> watchGlobs, ContainerdMatcher matcher,
                      HostClock clock) {
        this.scanner = new ProcessScanner(procRoot);
        this.bootIds = new BootIdReader(procRoot);
        this.bootClock = new BootClockSampler(clock, BootClockSampler.DEFAULT_SAMPLES);
        this.globs = new WatchGlobs(hostRoot, watchGlobs);
        this.files = new ConfigFileReader(ConfigFileReader.DEFAULT_MAX_BYTES);
        this.matcher = matcher;
        this.clock = clock;
    }

    public HostSnapshot read() {
        Instant observedAt = clock.wallNow();
        List<String> hostErrors = new ArrayList<>();
        String bootId = null;
        try {
            bootId = bootIds.read();
        } catch (IOException e) {
            hostErrors.add("boot id unreadable: " + IoErrors.describe(e));
        }
        List<ProcessSample> candidates = List.of();
        List<String> unreadableProcesses = List.of();
        try {
            ProcessScan scan = scanner.scan(matcher);
            candidates = scan.matched();
            unreadableProcesses = scan.unreadable();
        } catch (IOException e) {
            hostErrors.add("process list unreadable: " + IoErrors.describe(e));
        }
        BootClock boot = null;
        try {
            boot = bootClock.sample();
        } catch (IOException e) {
            hostErrors.add("uptime unreadable: " + IoErrors.describe(e));
        }
        List<WatchedFile> watched = new ArrayList<>();
        List<ConfigDocument> toml = new ArrayList<>();
        WatchGlobs.Expansion expansion = globs.expand();
        watched.addAll(expansion.unlistable());
        for (String path : expansion.paths()) {
            ConfigFileReader.FileRead read = files.read(path, globs.onHost(path));
            watched.add(read.file());
            if (path.endsWith(".toml") && read.content() != null) {
                toml.add(new ConfigDocument(path, new String(read.content(), StandardCharsets.UTF_8)));
            }
        }
        watched.sort(Comparator.comparing(WatchedFile::path));
        String hostError = hostErrors.isEmpty() ? null : String.join("; ", hostErrors);
        Observation observation = new Observation(bootId, boot, hostError, ProcStat.CLK_TCK, candidates, watched,
                observedAt);
        return new HostSnapshot(observation, toml, unreadableProcesses);
    }

    /** The watched globs, for the file watcher and the poller. */
    public WatchGlobs globs() {
        return globs;
    }

    public ProcessScanner scanner() {
        return scanner;
    }
}
