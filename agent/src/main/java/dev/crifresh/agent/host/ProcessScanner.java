package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.EvidenceRules;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Finds processes by command line under a proc root ({@code <procRoot>/[0-9]*}/{@code cmdline} and
 * {@code stat}). Processes that exit while being read are skipped: they are not running containerd.
 * Other read errors of a process that may be containerd are reported in {@link ProcessScan#unreadable()}.
 */
public final class ProcessScanner {
    /** What the kernel shows as {@code comm} for a program named containerd. */
    private static final String CONTAINERD_COMM = "containerd";
    private static final byte[] CONTAINERD_PROGRAM = ContainerdMatcher.PROGRAM.getBytes(StandardCharsets.US_ASCII);
    /** Enough for the program name of nearly every command line; a longer one is read in full. */
    private static final int HEAD_BYTES = 1024;
    private final Path procRoot;

    public ProcessScanner(Path procRoot) {
        this.procRoot = procRoot;
    }

    /**
     * Every process whose command line the matcher accepts, sorted by pid, and every process that may
     * be one but could not be read.
     *
     * @throws IOException when the proc root itself cannot be listed
     */
    public ProcessScan scan(ContainerdMatcher matcher) throws IOException {
        List<ProcessSample> found = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        byte[] head = new byte[HEAD_BYTES];
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(procRoot, ProcessScanner::isPidDir)) {
            for (Path dir : entries) {
                long pid = Long.parseLong(dir.getFileName().toString());
                Read read = sample(pid, dir.resolve("cmdline"), head, matcher);
                if (read.sample() != null) {
                    found.add(read.sample());
                } else if (read.problem() != null) {
                    unreadable.add("process " + pid + ": " + read.problem());
                }
            }
        }
        found.sort(Comparator.comparingLong(ProcessSample::pid));
        unreadable.sort(Comparator.naturalOrder());
        return new ProcessScan(found, unreadable);
    }

    /** The start ticks of a pid now, or empty when it no longer exists (or cannot be read). */
    public Optional<Long> startTicks(long pid) {
        try {
            return Optional.of(readStartTicks(pid));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** A matching sample, or a problem (it may be containerd but cannot be read), or neither (skip). */
    private record Read(ProcessSample sample, String problem) {
        static final Read SKIP = new Read(null, null);

        static Read unreadable(String problem) {
            return new Read(null, problem);
        }
    }

    /**
     * Only a process that vanished (or whose pid was reused while it was read) is skipped. Any other
     * read or parse error of a process that may be the CRI containerd is reported, never dropped:
     * dropping it could turn two containerds into one.
     */
    private Read sample(long pid, Path cmdlineFile, byte[] head, ContainerdMatcher matcher) {
        List<String> cmdline;
        try {
            // The poll reads every process every few seconds: most are ruled out by their program name
            // alone (the matcher says No to any other program), without decoding their whole command line.
            boolean maybe;
            try (InputStream in = Files.newInputStream(cmdlineFile)) {
                maybe = mayBeContainerd(in, head);
            }
            if (!maybe) {
                return Read.SKIP;
            }
            cmdline = readCmdline(pid);
        } catch (IOException e) {
            return vanished(e) ? Read.SKIP : unreadableCmdline(pid, e);
        }
        ContainerdMatcher.Match match = cmdline.isEmpty() ? new ContainerdMatcher.No() : matcher.match(cmdline);
        if (match instanceof ContainerdMatcher.No) {
            return Read.SKIP;
        }
        if (match instanceof ContainerdMatcher.Doubt doubt) {
            return Read.unreadable("may be the CRI containerd: " + doubt.why());
        }
        try {
            // Reading stat on both sides of cmdline guards against the pid being reused in between.
            String stat = readStat(pid);
            long before = ProcStat.startTicks(stat);
            List<String> again = readCmdline(pid);
            long after = readStartTicks(pid);
            if (before != after || !matcher.matches(again)) {
                return Read.SKIP; // another process now: the next scan (the poll) reads it
            }
            String impostor = notContainerdBinary(pid, ProcStat.comm(stat));
            if (impostor != null) {
                return Read.unreadable("its command line names containerd, but " + impostor);
            }
            return new Read(new ProcessSample(pid, after, again), null);
        } catch (IOException e) {
            return vanished(e) ? Read.SKIP : Read.unreadable("matches, but " + IoErrors.describe(e));
        } catch (IllegalArgumentException e) {
            return Read.unreadable("matches, but its stat does not parse (" + e.getMessage() + ")");
        }
    }

    /**
     * The command line cannot be read: {@code comm} in stat (the executable's base name) tells whether
     * it can be containerd at all, so an unrelated unreadable process does not make the node unknown.
     */
    private Read unreadableCmdline(long pid, IOException cmdlineError) {
        String why = "command line unreadable (" + IoErrors.describe(cmdlineError) + ")";
        try {
            String comm = ProcStat.comm(readStat(pid));
            return CONTAINERD_COMM.equals(comm) ? Read.unreadable(why) : Read.SKIP;
        } catch (IOException e) {
            return vanished(e) ? Read.SKIP : Read.unreadable(why + " and stat unreadable");
        } catch (IllegalArgumentException e) {
            return Read.unreadable(why + " and stat does not parse");
        }
    }

    /**
     * argv[0] is chosen by whoever starts a process ({@code exec -a}); the kernel's {@code comm} and the
     * {@code exe} link are not. Returns what contradicts "this is containerd", or null. {@code exe} needs
     * ptrace access (the agent has no capabilities, so on a real node it is often unreadable): when it
     * cannot be read, {@code comm} alone decides.
     */
    private String notContainerdBinary(long pid, String comm) {
        if (!CONTAINERD_COMM.equals(comm)) {
            return "its comm is '" + EvidenceRules.oneLine(comm) + "'";
        }
        try {
            String exe = Files.readSymbolicLink(procRoot.resolve(Long.toString(pid)).resolve("exe")).toString();
            String base = exe.substring(exe.lastIndexOf('/') + 1);
            if (base.endsWith(" (deleted)")) {
                base = base.substring(0, base.length() - " (deleted)".length());
            }
            return CONTAINERD_COMM.equals(base) ? null : "its exe is '" + EvidenceRules.oneLine(exe) + "'";
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** The process exited: its /proc entry is gone, or the kernel answers ESRCH while it is torn down. */
    private static boolean vanished(IOException e) {
        return e instanceof NoSuchFileException
                || (e.getMessage() != null && e.getMessage().contains("No such process"));
    }

    /**
     * False only when the command line's program (the bytes before the first NUL) provably has a base
     * name other than {@link ContainerdMatcher#PROGRAM}, or the command line is empty (a kernel thread):
     * then {@link ContainerdMatcher#match} says No. A program name longer than the buffer is a maybe.
     */
    static boolean mayBeContainerd(InputStream cmdline, byte[] head) throws IOException {
        int length = 0;
        int n;
        while (length < head.length && (n = cmdline.read(head, length, head.length - length)) > 0) {
            int end = indexOfNul(head, length, length + n);
            length += n;
            if (end >= 0) {
                return isContainerdProgram(head, end);
            }
        }
        // no NUL: the whole content is the program, unless the buffer is full (then it may go on)
        return length == head.length || (length > 0 && isContainerdProgram(head, length));
    }

    private static int indexOfNul(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code program[0, end)}'s base name (after the last '/') is exactly containerd's. */
    private static boolean isContainerdProgram(byte[] program, int end) {
        int start = end - CONTAINERD_PROGRAM.length;
        if (start < 0 || (start > 0 && program[start - 1] != '/')) {
            return false;
        }
        return Arrays.equals(program, start, end, CONTAINERD_PROGRAM, 0, CONTAINERD_PROGRAM.length);
    }

    private List<String> readCmdline(long pid) throws IOException {
        byte[] raw = Files.readAllBytes(procRoot.resolve(Long.toString(pid)).resolve("cmdline"));
        return splitNul(raw);
    }

    private long readStartTicks(long pid) throws IOException {
        return ProcStat.startTicks(readStat(pid));
    }

    private String readStat(long pid) throws IOException {
        return Files.readString(procRoot.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
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
