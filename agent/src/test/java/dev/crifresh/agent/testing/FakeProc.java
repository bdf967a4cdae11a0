package dev.crifresh.agent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A proc-root folder for tests where the real {@code /proc} is not the point: boot id, uptime and
 * {@code <pid>/{cmdline,stat,mountinfo,net/unix}} in the kernel's formats. A process added here is a containerd
 * that serves: its socket table shows a listener at the address its command line names (containerd's default
 * without one), as a containerd that loaded its config has; {@link #notServing} takes it away.
 */
public final class FakeProc {
    private final Path root;

    public FakeProc(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    public FakeProc bootId(String id) {
        write(root.resolve("sys/kernel/random/boot_id"), id + "\n");
        return this;
    }

    /** Makes the boot id unreadable (the file disappears). */
    public FakeProc withoutBootId() {
        try {
            Files.deleteIfExists(root.resolve("sys/kernel/random/boot_id"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public FakeProc uptime(Duration uptime) {
        write(root.resolve("uptime"), String.format("%d.%02d 1234.56%n", uptime.toSeconds(),
                uptime.toMillisPart() / 10));
        return this;
    }

    public FakeProc process(long pid, List<String> argv, long startTicks) {
        Path dir = root.resolve(Long.toString(pid));
        write(dir.resolve("cmdline"), String.join("\0", argv) + "\0");
        write(dir.resolve("stat"), pid + " (containerd) S 1 " + pid + " " + pid
                + " 0 -1 4194560 100 0 0 0 5 7 0 0 20 0 12 0 " + startTicks + " 1000000 500 18446744073709551615");
        write(dir.resolve("mountinfo"), "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                + "23 22 0:5 / /proc rw,nosuid,nodev,noexec shared:2 - proc proc rw\n");
        return serving(pid, address(argv));
    }

    /** containerd {@code pid} listens at {@code address} (its socket table shows the listener and a connection). */
    public FakeProc serving(long pid, String address) {
        write(root.resolve(Long.toString(pid)).resolve("net/unix"), UNIX_HEADER
                + "0000000000000000: 00000002 00000000 00010000 0001 01 250057 " + address + "\n"
                + "0000000000000000: 00000003 00000000 00000000 0001 03 259206 " + address + "\n"
                + "0000000000000000: 00000003 00000000 00000000 0001 03 259207\n");
        return this;
    }

    /** containerd {@code pid} has not bound its socket (still loading its config, or refusing it). */
    public FakeProc notServing(long pid) {
        write(root.resolve(Long.toString(pid)).resolve("net/unix"), UNIX_HEADER
                + "0000000000000000: 00000003 00000000 00000000 0001 03 259207\n");
        return this;
    }

    private static final String UNIX_HEADER = "Num       RefCount Protocol Flags    Type St Inode Path\n";

    /** The value of {@code --address}/{@code -a}, else containerd's default. */
    private static String address(List<String> argv) {
        for (int i = 1; i < argv.size(); i++) {
            String a = argv.get(i);
            if ((a.equals("--address") || a.equals("-a") || a.equals("-address") || a.equals("--a"))
                    && i + 1 < argv.size()) {
                return argv.get(i + 1);
            }
            for (String flag : List.of("--address=", "-address=", "-a=", "--a=")) {
                if (a.startsWith(flag)) {
                    return a.substring(flag.length());
                }
            }
        }
        return "/run/containerd/containerd.sock";
    }

    /** Replaces a process's stat with a line that does not parse. */
    public FakeProc garbleStat(long pid) {
        write(root.resolve(Long.toString(pid)).resolve("stat"), "garbage");
        return this;
    }

    public FakeProc remove(long pid) {
        try (Stream<Path> walk = Files.walk(root.resolve(Long.toString(pid)))) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    private static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
