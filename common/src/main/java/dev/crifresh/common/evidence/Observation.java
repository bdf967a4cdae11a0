package dev.crifresh.common.evidence;

import java.time.Instant;
import java.util.List;

/**
 * Everything the agent read on the node for one evaluation. Read errors are values, not exceptions:
 * {@code bootId} and {@code clock} are null when unreadable, with the cause in {@code hostError}.
 *
 * @param bootId           {@code /proc/sys/kernel/random/boot_id}, trimmed; null when unreadable
 * @param clock            the boot wall time estimate; null when {@code /proc/uptime} was unreadable
 * @param hostError        why bootId or clock is missing; null when both were read
 * @param clkTck           clock ticks per second for {@code startTicks} (100 on Linux)
 * @param candidates       every process whose command line matched the CRI containerd (see {@link ContainerdMatcher})
 * @param files            every watched config file, sorted by path
 * @param directories      every directory holding watched or imported files, sorted by path
 * @param unwatchedImports the files containerd loads (its config and, recursively, the config's
 *                         {@code imports}) that are not among {@code files}, each with why; empty when all are
 * @param observedAt       the wall time of the read
 * @param mountProblems    mount points on the paths to the evidence (the config files, their
 *                         directories and every directory passed on the way, symlink targets included)
 *                         that the platform does not create, as containerd's mount table shows them, or
 *                         why that table cannot be read; each makes the verdict unknown
 *                         ({@link Reason#CONFIG_PATH_MOUNTED}). Empty when there are none.
 * @param containerdSocket the CRI containerd's socket, the clock witness; null when not read (no single
 *                         containerd, or no {@code --address} on its command line)
 * @param introspection    containerd's introspection answer and the files' credential hosts (rule 1b); null when
 *                         the check is off or there is no single containerd to ask
 * @param listener         whether the single containerd listens at its address (rule 1, serving); null when not
 *                         read (no single containerd), which the rules never take for serving
 */
public record Observation(
        String bootId,
        BootClock clock,
        String hostError,
        long clkTck,
        List<ProcessSample> candidates,
        List<WatchedFile> files,
        List<WatchedDirectory> directories,
        List<String> unwatchedImports,
        Instant observedAt,
        List<String> mountProblems,
        ContainerdSocket containerdSocket,
        Introspection introspection,
        ContainerdListener listener) {

    public Observation {
        candidates = List.copyOf(candidates);
        files = List.copyOf(files);
        directories = List.copyOf(directories);
        unwatchedImports = List.copyOf(unwatchedImports);
        mountProblems = List.copyOf(mountProblems);
    }

    /** The same observation with this introspection evidence. */
    public Observation withIntrospection(Introspection check) {
        return new Observation(bootId, clock, hostError, clkTck, candidates, files, directories, unwatchedImports,
                observedAt, mountProblems, containerdSocket, check, listener);
    }

    /** An observation of the process and files only (simulated hosts, a failed read, rule tests). */
    public Observation(String bootId, BootClock clock, String hostError, long clkTck, List<ProcessSample> candidates,
                       List<WatchedFile> files, Instant observedAt) {
        this(bootId, clock, hostError, clkTck, candidates, files, List.of(), List.of(), observedAt, List.of(), null,
                null, null);
    }
}
