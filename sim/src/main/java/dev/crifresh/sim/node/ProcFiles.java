package dev.crifresh.sim.node;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The text of the /proc entries the agent reads, in the kernel's formats. Pure rendering, no I/O. */
public final class ProcFiles {
    /** USER_HZ: the unit of {@code starttime} in {@code /proc/<pid>/stat}. */
    public static final long CLK_TCK = 100;

    /** Talos' CRI containerd. */
    public static final List<String> CRI_CONTAINERD = List.of("/bin/containerd",
            "--address", "/run/containerd/containerd.sock", "--config", "/etc/cri/containerd.toml");
    /** Talos' system containerd (runs the system services); the agent must never take it for the CRI one. */
    public static final List<String> SYSTEM_CONTAINERD = List.of("/bin/containerd",
            "--address", "/system/run/containerd/containerd.sock",
            "--state", "/system/run/containerd", "--root", "/system/var/lib/containerd");
    public static final List<String> INIT = List.of("/sbin/init");

    private ProcFiles() {
    }

    /** NUL-separated arguments with a trailing NUL, as the kernel shows them. */
    public static byte[] cmdline(List<String> argv) {
        StringBuilder sb = new StringBuilder();
        for (String arg : argv) {
            sb.append(arg).append('\0');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Clock ticks since boot, truncated as the kernel does. */
    public static long ticks(Duration sinceBoot) {
        return Math.floorDiv(sinceBoot.toNanos(), 1_000_000_000L / CLK_TCK);
    }

    /**
     * A {@code /proc/<pid>/stat} line (52 fields) with {@code starttime} (field 22) = {@code startTicks}.
     * The other fields are plausible constants.
     */
    public static String stat(long pid, String comm, long ppid, long startTicks) {
        return pid + " (" + comm + ") S " + ppid + " " + pid + " " + pid
                + " 0 -1 4194560 18342 0 21 0 1532 911 0 0 20 0 42 0 " + startTicks
                + " 2012807168 13107 18446744073709551615 1 1 0 0 0 0 1002055680 0 2143420159"
                + " 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
    }

    /**
     * {@code /proc/<pid>/net/unix}: the unix sockets of the process's network namespace, here a listening stream
     * socket ({@code __SO_ACCEPTCON}, unconnected) at each of {@code listening}, and a client's connection.
     */
    public static String unixSockets(List<String> listening) {
        StringBuilder sb = new StringBuilder("Num       RefCount Protocol Flags    Type St Inode Path\n");
        long inode = 250_000;
        for (String path : listening) {
            sb.append("0000000000000000: 00000002 00000000 00010000 0001 01 ").append(inode++).append(' ')
                    .append(path).append('\n');
        }
        sb.append("0000000000000000: 00000003 00000000 00000000 0001 03 ").append(inode).append('\n');
        return sb.toString();
    }

    /** {@code /proc/uptime}: seconds since boot and aggregate idle seconds, two decimals. */
    public static String uptime(Duration sinceBoot) {
        double up = sinceBoot.toMillis() / 1000.0;
        return String.format(Locale.ROOT, "%.2f %.2f%n", up, up * 1.7);
    }
}
