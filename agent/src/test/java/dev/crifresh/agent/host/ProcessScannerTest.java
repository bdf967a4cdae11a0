package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.testing.FakeContainerd;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.ProcessSample;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessScannerTest {
    private final ProcessScanner scanner = new ProcessScanner(Path.of("/proc"));

    @Test
    void findsTalosCriContainerdThroughRealProcAndNeverTheSystemOne() throws Exception {
        try (FakeContainerd cri = FakeContainerd.start(FakeContainerd.TALOS_CRI);
             FakeContainerd system = FakeContainerd.start(FakeContainerd.TALOS_SYSTEM)) {
            List<ProcessSample> found = scanner.scan(ContainerdMatcher.talosCri()).matched();
            ProcessSample ours = found.stream().filter(s -> s.pid() == cri.pid()).findFirst().orElseThrow();
            assertEquals(FakeContainerd.TALOS_CRI, ours.cmdline());
            assertEquals(cri.startTicks(), ours.startTicks());
            assertTrue(found.stream().noneMatch(s -> s.pid() == system.pid()), "system containerd matched");
        }
    }

    @Test
    void countsOnlyMatchingProcessesAndForgetsExitedOnes() throws Exception {
        // A marker pair unique to this run keeps other builds' fake containerds on this machine out of the count.
        String marker = "/tmp/crifresh-test-" + UUID.randomUUID();
        ContainerdMatcher matcher = ContainerdMatcher.parse(ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker);
        List<String> cri = with(FakeContainerd.TALOS_CRI, "--root", marker);
        List<String> system = with(FakeContainerd.TALOS_SYSTEM, "--root", marker);
        List<FakeContainerd> started = new ArrayList<>();
        try {
            FakeContainerd a = FakeContainerd.start(cri);
            started.add(a);
            started.add(FakeContainerd.start(system));
            assertEquals(List.of(a.pid()), pids(scanner.scan(matcher).matched()));
            FakeContainerd b = FakeContainerd.start(cri);
            started.add(b);
            assertEquals(2, scanner.scan(matcher).matched().size());
            b.close();
            assertEquals(List.of(a.pid()), pids(scanner.scan(matcher).matched()));
            a.close();
            assertTrue(scanner.scan(matcher).matched().isEmpty());
            assertFalse(scanner.startTicks(a.pid()).isPresent());
        } finally {
            started.forEach(FakeContainerd::close);
        }
    }

    @Test
    void skipsKernelThreadsZombieLikeEntriesAndVanishedPids(@TempDir Path proc) throws Exception {
        Path p1 = Files.createDirectories(proc.resolve("10"));
        Files.write(p1.resolve("cmdline"), String.join("\0", FakeContainerd.TALOS_CRI).concat("\0")
                .getBytes(StandardCharsets.UTF_8));
        Files.writeString(p1.resolve("stat"), "10 (containerd) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4321 0 0");
        Files.createDirectories(proc.resolve("11")).resolve("cmdline").toFile().createNewFile(); // kernel thread
        Path p12 = Files.createDirectories(proc.resolve("12")); // vanished: no files
        Files.createDirectories(proc.resolve("self"));
        Files.write(Files.createDirectories(proc.resolve("13")).resolve("cmdline"),
                String.join("\0", FakeContainerd.TALOS_CRI).getBytes(StandardCharsets.UTF_8)); // no stat: exited
        ProcessScan scan = scanner(proc).scan(ContainerdMatcher.talosCri());
        assertEquals(List.of(new ProcessSample(10, 4321, FakeContainerd.TALOS_CRI)), scan.matched());
        assertEquals(List.of(), scan.unreadable(), "vanished processes are not unreadable ones");
        assertTrue(Files.isDirectory(p12));
    }

    @Test
    void aMatchingProcessWithAGarbageStatIsReportedNotDroppedButAnUnrelatedOneIsIgnored(@TempDir Path proc)
            throws Exception {
        Path p1 = Files.createDirectories(proc.resolve("10"));
        Files.write(p1.resolve("cmdline"), String.join("\0", FakeContainerd.TALOS_CRI).concat("\0")
                .getBytes(StandardCharsets.UTF_8));
        Files.writeString(p1.resolve("stat"), "10 (containerd) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4321 0 0");
        Path p20 = Files.createDirectories(proc.resolve("20"));
        Files.write(p20.resolve("cmdline"), String.join("\0", FakeContainerd.TALOS_CRI).concat("\0")
                .getBytes(StandardCharsets.UTF_8));
        Files.writeString(p20.resolve("stat"), "garbage");
        Path p30 = Files.createDirectories(proc.resolve("30"));
        Files.write(p30.resolve("cmdline"), "/usr/bin/unrelated\0".getBytes(StandardCharsets.UTF_8));
        Files.writeString(p30.resolve("stat"), "garbage");

        ProcessScan scan = scanner(proc).scan(ContainerdMatcher.talosCri());
        assertEquals(List.of(new ProcessSample(10, 4321, FakeContainerd.TALOS_CRI)), scan.matched());
        assertEquals(1, scan.unreadable().size(), scan.unreadable().toString());
        assertTrue(scan.unreadable().get(0).startsWith("process 20: matches, but its stat does not parse"),
                scan.unreadable().get(0));
    }

    @Test
    void rulesOutOtherProgramsByTheirNameAloneButNeverAPossibleContainerd() throws Exception {
        assertTrue(mayBe("/usr/local/bin/containerd\0--address\0/run/containerd/containerd.sock\0"));
        assertTrue(mayBe("containerd\0"));
        assertTrue(mayBe("/bin/containerd"), "no NUL: the whole content is the program");
        assertTrue(mayBe("/" + "x/".repeat(600) + "containerd\0-c\0/etc/cri/containerd.toml\0"),
                "a program name longer than the buffer is read in full");
        assertFalse(mayBe("/usr/bin/containerd-shim-runc-v2\0-namespace\0k8s.io\0"));
        assertFalse(mayBe("/usr/bin/xcontainerd\0--address\0/run/containerd/containerd.sock\0"));
        assertFalse(mayBe("sh\0-c\0/usr/bin/containerd --config /etc/cri/containerd.toml\0"),
                "the matcher says No to another program, whatever its arguments");
        assertFalse(mayBe(""), "a kernel thread");
        assertFalse(mayBe("\0containerd\0"), "an empty program name");
    }

    @Test
    void findsAContainerdWhoseProgramPathIsLongerThanTheScansBuffer(@TempDir Path proc) throws Exception {
        List<String> argv = new ArrayList<>(FakeContainerd.TALOS_CRI);
        argv.set(0, "/" + "very-long-directory/".repeat(80) + "containerd");
        new dev.crifresh.agent.testing.FakeProc(proc).process(10, argv, 4321);
        assertEquals(List.of(new ProcessSample(10, 4321, argv)),
                scanner(proc).scan(ContainerdMatcher.talosCri()).matched());
    }

    private static boolean mayBe(String cmdline) throws Exception {
        return ProcessScanner.mayBeContainerd(new java.io.ByteArrayInputStream(
                cmdline.getBytes(StandardCharsets.UTF_8)), new byte[1024]);
    }

    @Test
    void splitsNulSeparatedCommandLines() {
        assertEquals(List.of("a", "b c", ""), ProcessScanner.splitNul("a\0b c\0\0".getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of("a", "b"), ProcessScanner.splitNul("a\0b".getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of(), ProcessScanner.splitNul(new byte[0]));
    }

    private static ProcessScanner scanner(Path root) {
        return new ProcessScanner(root);
    }

    private static List<String> with(List<String> argv, String... more) {
        List<String> out = new ArrayList<>(argv);
        out.addAll(List.of(more));
        return out;
    }

    private static List<Long> pids(List<ProcessSample> samples) {
        return samples.stream().map(ProcessSample::pid).toList();
    }

    @Test
    void ambiguousCommandLinesAndImpostorsAreReportedNotDropped() throws Exception {
        String marker = "/tmp/crifresh-test-" + UUID.randomUUID();
        ContainerdMatcher matcher = ContainerdMatcher.parse(ContainerdMatcher.TALOS_CRI_SPEC + " --root " + marker);
        List<FakeContainerd> started = new ArrayList<>();
        try {
            started.add(FakeContainerd.start(with(FakeContainerd.TALOS_CRI, "--root", marker, "-c", "/tmp/other.toml")));
            started.add(FakeContainerd.start(with(FakeContainerd.TALOS_CRI, "--root", marker), "sh"));
            ProcessScan scan = scanner.scan(matcher);
            assertEquals(List.of(), scan.matched());
            assertEquals(2, scan.unreadable().size(), scan.unreadable().toString());
            assertTrue(scan.unreadable().stream().anyMatch(u -> u.contains("--config is given")), scan.unreadable().toString());
            assertTrue(scan.unreadable().stream().anyMatch(u -> u.contains("comm is 'sh'")), scan.unreadable().toString());
        } finally {
            started.forEach(FakeContainerd::close);
        }
    }
}
