package dev.crifresh.agent.testing;

import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real processes with chosen command lines, read through the real {@code /proc}, built from nothing but
 * an existing binary: a copy of the system's {@code sleep} named {@code containerd} (or the requested
 * {@code comm}), so that the kernel's {@code comm} and the {@code exe} link name it as a real containerd's
 * do. {@code sleep} would refuse containerd's flags, so it is started as {@code <padding> inf} (it parses
 * that, then waits in {@code pause()}), and once it waits the test writes the wanted argv over the
 * process's own argument area through {@code /proc/<pid>/mem} (the same bytes' length: the kernel's
 * {@code cmdline} is that area). The test JVM is the process's parent, which Yama's default ptrace
 * scope allows; no compiler, no capability.
 */
public final class FakeContainerd implements AutoCloseable {
    private static final Map<String, Path> BINARIES = new HashMap<>();

    /** Talos' CRI containerd. */
    public static final List<String> TALOS_CRI = List.of("/bin/containerd", "--address",
            "/run/containerd/containerd.sock", "--config", "/etc/cri/containerd.toml");
    /** Talos' system containerd: must never be taken for the CRI one. */
    public static final List<String> TALOS_SYSTEM = List.of("/bin/containerd", "--address",
            "/system/run/containerd/containerd.sock", "--state", "/system/state", "--root",
            "/system/var/lib/containerd");

    private final Process process;
    private final List<String> argv;

    private FakeContainerd(Process process, List<String> argv) {
        this.process = process;
        this.argv = argv;
    }

    public static FakeContainerd start(List<String> argv) throws IOException {
        return start(argv, null);
    }

    public static FakeContainerd start(List<String> argv, String comm) throws IOException {
        return launch(List.of(), "true", argv, comm);
    }

    /**
     * Starts it in a private mount namespace ({@code unshare --mount --propagation private}, root only)
     * after {@code setup} ran there as a bash script: mounts made by {@code setup} are seen by this
     * process alone, as a mount made in containerd's namespace would be. The process's start time is
     * that of {@code unshare}, before {@code setup} ran.
     */
    public static FakeContainerd startInMountNamespace(List<String> argv, String setup) throws IOException {
        return launch(List.of("unshare", "--mount", "--propagation", "private"), setup, argv, null);
    }

    /** Starts it in the mount namespace of {@code pid} ({@code nsenter --mount}). */
    public static FakeContainerd startInMountNamespaceOf(long pid, List<String> argv) throws IOException {
        return launch(List.of("nsenter", "--mount", "--target", Long.toString(pid)), "true", argv, null);
    }

    /** {@code launcher} must exec (not fork) into bash, so that the process the test started is the stand-in. */
    private static FakeContainerd launch(List<String> launcher, String setup, List<String> argv, String comm)
            throws IOException {
        byte[] wanted = (String.join("\0", argv) + "\0").getBytes(StandardCharsets.UTF_8);
        // argv of the same total length that sleep accepts: "<padding>\0inf\0"
        int padding = wanted.length - "\0inf\0".length();
        if (argv.isEmpty() || padding < 1) {
            throw new IllegalArgumentException("command line too short for a stand-in process: " + argv);
        }
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of("bash", "-c", "set -e\n" + setup + "\nexec -a \"$0\" \"$FAKE_BIN\" \"$@\"",
                "x".repeat(padding), "inf"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Path binary = binary(comm == null ? "containerd" : comm);
        pb.environment().put("FAKE_BIN", binary.toString());
        FakeContainerd fake = new FakeContainerd(pb.start(), List.copyOf(argv));
        try {
            fake.rewriteArgv(binary, wanted);
        } catch (IOException | RuntimeException | Error e) {
            fake.close();
            throw e;
        }
        return fake;
    }

    public long pid() {
        return process.pid();
    }

    public List<String> argv() {
        return argv;
    }

    /** Field 22 of the real /proc/<pid>/stat. */
    public long startTicks() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[19]);
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until the copy of sleep runs and has parsed its arguments (it waits in pause()), then writes
     * {@code wanted} over its argument area and checks that {@code /proc/<pid>/cmdline} shows it.
     */
    private void rewriteArgv(Path binary, byte[] wanted) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid()));
        Poll.until(Duration.ofSeconds(10), "the stand-in " + binary + " to wait in pause()", () -> {
            try {
                return Files.readSymbolicLink(proc.resolve("exe")).equals(binary)
                        && waits(Files.readString(proc.resolve("wchan")));
            } catch (IOException e) {
                return false;
            }
        });
        String stat = Files.readString(proc.resolve("stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long argStart = Long.parseUnsignedLong(f[45]); // fields 48 and 49: arg_start, arg_end
        long argEnd = Long.parseUnsignedLong(f[46]);
        if (argEnd - argStart != wanted.length) {
            throw new IOException("argument area of pid " + pid() + " is " + (argEnd - argStart) + " bytes, expected "
                    + wanted.length + " (arg_start/arg_end unreadable: no ptrace access?)");
        }
        try (RandomAccessFile mem = new RandomAccessFile(proc.resolve("mem").toFile(), "rw")) {
            mem.seek(argStart);
            mem.write(wanted);
        }
        byte[] shown = Files.readAllBytes(proc.resolve("cmdline"));
        if (!Arrays.equals(shown, wanted)) {
            throw new IOException("cmdline of pid " + pid() + " did not take the new argv: "
                    + new String(shown, StandardCharsets.UTF_8).replace('\0', ' '));
        }
    }

    /** The kernel function a sleeping {@code sleep inf} waits in (newer coreutils pause, older ones nanosleep). */
    private static boolean waits(String wchan) {
        return wchan.contains("pause") || wchan.contains("sleep");
    }

    /** A copy of the system's sleep named {@code name}, one per name and JVM. */
    private static synchronized Path binary(String name) throws IOException {
        Path binary = BINARIES.get(name);
        if (binary == null) {
            Path sleep = Stream.of("/usr/bin/sleep", "/bin/sleep").map(Path::of).filter(Files::isExecutable)
                    .findFirst().orElseThrow(() -> new IOException("no sleep binary in /usr/bin or /bin"));
            Path dir = Files.createTempDirectory("fake-containerd");
            binary = dir.resolve(name);
            // deleted at JVM exit in reverse order: the file, then the directory
            dir.toFile().deleteOnExit();
            binary.toFile().deleteOnExit();
            Files.copy(sleep, binary);
            if (!binary.toFile().setExecutable(true)) {
                throw new IOException("cannot make " + binary + " executable");
            }
            BINARIES.put(name, binary);
        }
        return binary;
    }
}
