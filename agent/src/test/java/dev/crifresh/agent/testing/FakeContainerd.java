package dev.crifresh.agent.testing;

import dev.crifresh.agent.host.UnixSocketTable;
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
 * scope allows.
 *
 * <p>Each stand-in runs in a network and mount namespace of its own ({@code unshare --net --mount}, root only) with a
 * tmpfs on {@code /run}: its {@code /proc/<pid>/net/unix} shows only its own sockets, so the machine's own
 * containerd (or another suite's, listening at {@code /run/containerd/containerd.sock} in the host's namespace)
 * never makes it look as if it served, and nothing is bound under the machine's {@code /run}. A stand-in
 * {@linkplain #startServing serves} as a containerd that loaded its config does: a listening stream socket at its
 * {@code --address} in its namespace, held by a small perl process there that exits with the stand-in.
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

    /** The private namespaces every stand-in runs in. */
    private static final List<String> OWN_NAMESPACES = List.of("unshare", "--net", "--mount", "--propagation", "private");
    /** Mounts the private /run, before the caller's setup. */
    private static final String NAMESPACE_SETUP = "mount -t tmpfs crifresh-run /run\n";
    /** When $SERVE is set, starts the listener, after the caller's setup, before the stand-in takes over. */
    private static final String SERVE_SETUP = "if [ -n \"$SERVE\" ]; then " + listenerCommand("\"$SERVE\"") + " & fi\n";

    private final Process process;
    private final List<String> argv;
    private final List<Process> listeners = new ArrayList<>();

    private FakeContainerd(Process process, List<String> argv) {
        this.process = process;
        this.argv = argv;
    }

    /** A containerd that has not bound its socket: still loading its config, or refusing it. */
    public static FakeContainerd start(List<String> argv) throws IOException {
        return start(argv, null);
    }

    public static FakeContainerd start(List<String> argv, String comm) throws IOException {
        return launch(List.of(), "true", argv, comm, false);
    }

    /** A containerd that serves: listening at its {@code --address} by the time this returns. */
    public static FakeContainerd startServing(List<String> argv) throws IOException {
        return launch(List.of(), "true", argv, null, true);
    }

    /**
     * {@link #startServing}, its socket's directory bind-mounted from under {@code hostRoot}: the socket it binds
     * at its {@code --address} is the file the agent reads under the host root, as on a node (the clock witness).
     */
    public static FakeContainerd startServingUnder(List<String> argv, Path hostRoot) throws IOException {
        String address = servableAddress(argv);
        String dir = address.substring(0, address.lastIndexOf('/'));
        Path onHost = hostRoot.resolve(dir.substring(1));
        Files.createDirectories(onHost);
        return launch(List.of(), "mkdir -p '" + dir + "'\nmount --bind '" + onHost + "' '" + dir + "'", argv, null,
                true);
    }

    /** {@link #startServing} with the kernel's {@code comm} {@code comm}. */
    public static FakeContainerd startServing(List<String> argv, String comm) throws IOException {
        return launch(List.of(), "true", argv, comm, true);
    }

    /**
     * Starts it, serving, in its private mount namespace after {@code setup} ran there as a bash script: mounts
     * made by {@code setup} are seen by this process alone, as a mount made in containerd's namespace would be.
     * The process's start time is that of {@code unshare}, before {@code setup} ran.
     */
    public static FakeContainerd startInMountNamespace(List<String> argv, String setup) throws IOException {
        return launch(List.of(), setup, argv, null, true);
    }

    /**
     * Starts it, serving, in a mount namespace cloned from that of {@code pid} ({@code nsenter --mount}, then
     * namespaces of its own): it sees {@code pid}'s mounts.
     */
    public static FakeContainerd startInMountNamespaceOf(long pid, List<String> argv) throws IOException {
        return launch(List.of("nsenter", "--mount", "--target", Long.toString(pid)), "true", argv, null, true);
    }

    /** {@code launcher} must exec (not fork) into bash, so that the process the test started is the stand-in. */
    private static FakeContainerd launch(List<String> launcher, String setup, List<String> argv, String comm,
            boolean serving) throws IOException {
        byte[] wanted = (String.join("\0", argv) + "\0").getBytes(StandardCharsets.UTF_8);
        // argv of the same total length that sleep accepts: "<padding>\0inf\0"
        int padding = wanted.length - "\0inf\0".length();
        if (argv.isEmpty() || padding < 1) {
            throw new IllegalArgumentException("command line too short for a stand-in process: " + argv);
        }
        List<String> command = new ArrayList<>(launcher);
        command.addAll(OWN_NAMESPACES);
        command.addAll(List.of("bash", "-c", "set -e\n" + NAMESPACE_SETUP + setup + "\n" + SERVE_SETUP
                + "exec -a \"$0\" \"$FAKE_BIN\" \"$@\"", "x".repeat(padding), "inf"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Path binary = binary(comm == null ? "containerd" : comm);
        pb.environment().put("FAKE_BIN", binary.toString());
        String address = serving ? servableAddress(argv) : null;
        if (address != null) {
            pb.environment().put("SERVE", address);
        }
        FakeContainerd fake = new FakeContainerd(pb.start(), List.copyOf(argv));
        try {
            fake.rewriteArgv(binary, wanted);
            if (address != null) {
                fake.awaitListening(address);
            }
        } catch (IOException | RuntimeException | Error e) {
            fake.close();
            throw e;
        }
        return fake;
    }

    public long pid() {
        return process.pid();
    }

    /**
     * containerd finishes loading its config and binds its socket: a listener at its {@code --address} in its
     * namespaces ({@code nsenter}), listening by the time this returns.
     */
    public FakeContainerd serve() throws IOException {
        String address = servableAddress(argv);
        ProcessBuilder pb = new ProcessBuilder("nsenter", "--net", "--mount", "--target", Long.toString(pid()),
                "bash", "-c", listenerCommand("\"$0\""), address).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        listeners.add(pb.start());
        awaitListening(address);
        return this;
    }

    /** Whether its socket table shows a listener at its address now. */
    public boolean listening() {
        String address = servableAddress(argv);
        return UnixSocketTable.read(Path.of("/proc"), pid(), address).isListening();
    }

    private void awaitListening(String address) {
        Poll.until(Duration.ofSeconds(10), "pid " + pid() + " listening at " + address,
                () -> UnixSocketTable.read(Path.of("/proc"), pid(), address).isListening());
    }

    /**
     * A perl process that binds a stream socket at the address (an abstract name for a leading {@code @}), listens,
     * and exits once its parent (the stand-in, or {@code nsenter}'s process) is gone.
     */
    private static String listenerCommand(String addressWord) {
        return "perl -MSocket -e 'my $a = shift; $a =~ s/^@/\\0/; my $d = $a; $d =~ s{/[^/]*$}{};"
                + " system(\"mkdir\", \"-p\", $d) if $a =~ m{^/} && length $d;"
                + " socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die $!; unlink $a if $a =~ m{^/};"
                + " bind($s, pack_sockaddr_un($a)) or die $!; listen($s, 16) or die $!;"
                + " my $p = getppid(); select(undef, undef, undef, 0.05) while getppid() == $p;' " + addressWord;
    }

    /** Whether a stand-in with this command line can serve: its {@code --address} is under /run or abstract. */
    public static boolean canServe(List<String> argv) {
        try {
            servableAddress(argv);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The stand-in's {@code --address}: under {@code /run} (its private tmpfs) or an abstract name, nowhere else. */
    private static String servableAddress(List<String> argv) {
        String address = null;
        for (int i = 1; i + 1 < argv.size(); i++) {
            if (argv.get(i).equals("--address") || argv.get(i).equals("-a")) {
                address = argv.get(i + 1);
            }
        }
        if (address == null || !(address.startsWith("/run/") || address.startsWith("@"))) {
            throw new IllegalArgumentException("a serving stand-in needs an --address under /run (its private tmpfs)"
                    + " or an abstract name, got " + argv);
        }
        return address;
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
        listeners.forEach(Process::destroyForcibly);
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
