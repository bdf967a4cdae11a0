package dev.crifresh.agent.testing;

import dev.crifresh.mockapi.Poll;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real processes with chosen command lines, read through the real {@code /proc}: a tiny C program
 * (compiled once per JVM with the system's gcc) that sleeps in {@code pause()}, started through
 * {@code bash exec -a} so that argv[0] is exactly what the test asks for (e.g. {@code /bin/containerd}).
 * With {@code comm} set it also renames its {@code /proc/<pid>/comm} via {@code prctl(PR_SET_NAME)}.
 */
public final class FakeContainerd implements AutoCloseable {
    private static final String SOURCE = """
            #include <stdlib.h>
            #include <sys/prctl.h>
            #include <unistd.h>
            int main(void) {
                const char *comm = getenv("FAKE_COMM");
                if (comm != NULL) {
                    prctl(PR_SET_NAME, comm, 0, 0, 0);
                }
                for (;;) {
                    pause();
                }
            }
            """;
    private static Path binary;

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
        List<String> command = new ArrayList<>(List.of("bash", "-c", "exec -a \"$0\" \"$FAKE_BIN\" \"$@\""));
        command.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("FAKE_BIN", binary().toString());
        if (comm != null) {
            pb.environment().put("FAKE_COMM", comm);
        }
        FakeContainerd fake = new FakeContainerd(pb.start(), List.copyOf(argv));
        fake.awaitExec();
        if (comm != null) {
            fake.awaitComm(comm); // prctl runs after exec: until then the kernel's comm is still the binary's name
        }
        return fake;
    }

    private void awaitComm(String comm) {
        Path file = Path.of("/proc", Long.toString(pid()), "comm");
        String want = comm.length() > 15 ? comm.substring(0, 15) : comm;
        Poll.until(Duration.ofSeconds(10), "comm " + want, () -> {
            try {
                return Files.readString(file).strip().equals(want);
            } catch (IOException e) {
                return false;
            }
        });
    }

    /**
     * Starts it in a private mount namespace ({@code unshare --mount --propagation private}, root only)
     * after {@code setup} ran there as a bash script: mounts made by {@code setup} are seen by this
     * process alone, as a mount made in containerd's namespace would be. The process's start time is
     * that of {@code unshare}, before {@code setup} ran.
     */
    public static FakeContainerd startInMountNamespace(List<String> argv, String setup) throws IOException {
        return startAfter(List.of("unshare", "--mount", "--propagation", "private"), setup, argv);
    }

    /** Starts it in the mount namespace of {@code pid} ({@code nsenter --mount}). */
    public static FakeContainerd startInMountNamespaceOf(long pid, List<String> argv) throws IOException {
        return startAfter(List.of("nsenter", "--mount", "--target", Long.toString(pid)), "true", argv);
    }

    private static FakeContainerd startAfter(List<String> launcher, String setup, List<String> argv)
            throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of("bash", "-c", "set -e\n" + setup + "\nexec -a \"$0\" \"$FAKE_BIN\" \"$@\""));
        command.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("FAKE_BIN", binary().toString());
        FakeContainerd fake = new FakeContainerd(pb.start(), List.copyOf(argv));
        fake.awaitExec();
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

    private void awaitExec() throws IOException {
        Path cmdline = Path.of("/proc", Long.toString(pid()), "cmdline");
        String want = String.join("\0", argv) + "\0";
        Poll.until(Duration.ofSeconds(10), "exec of " + argv, () -> {
            try {
                return new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).equals(want);
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static synchronized Path binary() throws IOException {
        if (binary == null) {
            Path dir = Files.createTempDirectory("fake-containerd");
            Path src = dir.resolve("fake.c");
            Path out = dir.resolve("containerd");
            // deleted at JVM exit in reverse order: the files, then the directory
            dir.toFile().deleteOnExit();
            src.toFile().deleteOnExit();
            out.toFile().deleteOnExit();
            Files.writeString(src, SOURCE);
            try {
                Process gcc = new ProcessBuilder("gcc", "-O2", "-o", out.toString(), src.toString())
                        .redirectErrorStream(true).start();
                String log = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                    throw new IOException("gcc failed: " + log);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while compiling", e);
            }
            binary = out;
        }
        return binary;
    }
}
