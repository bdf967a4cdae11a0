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
 * {@code <pid>/{cmdline,stat}} in the kernel's formats.
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
        return this;
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
