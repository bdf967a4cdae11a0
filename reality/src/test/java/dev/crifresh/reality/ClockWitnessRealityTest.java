package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.host.BootClockSampler;
import dev.crifresh.agent.host.ChangeTimes;
import dev.crifresh.agent.host.ContainerdSocketReader;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostPaths;
import dev.crifresh.common.evidence.BootClock;
import dev.crifresh.common.evidence.ClockWitness;
import dev.crifresh.common.evidence.ContainerdSocket;
import dev.crifresh.sim.scenario.Credential;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * containerd's socket as the clock witness, on the real containerd: it unlinks and re-binds its socket at
 * every start, after reading its config, so the socket's stamps agree with its start as the agent derives
 * it from the real {@code /proc}. Threat model: clock steps are inside it; here the clock is not stepped
 * (the machine's clock is never changed), so the witness must agree, twice: at a start and at a restart, on
 * every containerd generation (1.6, 1.7, 2.1).
 */
class ClockWitnessRealityTest {
    private static final Path PROC = Path.of("/proc");

    @TempDir
    Path tmp;

    static Stream<ContainerdGeneration> generations() {
        return ContainerdGeneration.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("generations")
    void theSocketOfARealContainerdAgreesWithItsProcStartAtEveryStart(ContainerdGeneration generation) throws Exception {
        RealityGate.require();
        RealityGate.require(generation);
        CriNode node = new CriNode(tmp.resolve("node"), generation.layout());
        node.render("registry.invalid", new Credential("deploy-bot", "token-v1"));
        // containerd's /run/containerd is <node>/host/run/containerd: its --address resolves under the host root
        ContainerdSocketReader sockets = new ContainerdSocketReader(new HostPaths(node.hostRoot()), ChangeTimes.KERNEL);

        Instant firstBind;
        try (RealContainerd containerd = RealContainerd.start(node, generation)) {
            firstBind = assertAgrees(containerd, sockets);
        }
        try (RealContainerd again = RealContainerd.start(node, generation)) {
            Instant secondBind = assertAgrees(again, sockets);
            assertTrue(secondBind.isAfter(firstBind), "a restart binds a new socket: " + firstBind + " → " + secondBind);
        }
    }

    /** Reads the socket named by the real process's own --address and judges it against its /proc start. */
    private static Instant assertAgrees(RealContainerd containerd, ContainerdSocketReader sockets) throws Exception {
        Path proc = PROC.resolve(Long.toString(containerd.pid()));
        List<String> cmdline = Arrays.asList(Files.readString(proc.resolve("cmdline"), StandardCharsets.UTF_8)
                .split("\0"));
        assertEquals(List.of("containerd", "--address", "/run/containerd/containerd.sock", "--config",
                "/etc/cri/containerd.toml"), cmdline, "the real process is containerd with Talos' arguments");
        String stat = Files.readString(proc.resolve("stat"));
        long startTicks = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]);
        BootClock boot = new BootClockSampler(HostClock.system(PROC), BootClockSampler.DEFAULT_SAMPLES).sample();
        Instant started = boot.bootWallTime().plus(Duration.ofMillis(startTicks * 10));

        ContainerdSocket socket = sockets.read(cmdline);

        assertTrue(socket.usable(), "containerd's socket: " + socket.problem());
        ClockWitness.Reading reading = ClockWitness.read(socket, started, boot.error());
        assertInstanceOf(ClockWitness.Agrees.class, reading, reading.describe());
        System.out.println("containerd pid " + containerd.pid() + ": " + reading.describe());
        return socket.mtime();
    }
}
