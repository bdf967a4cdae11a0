package dev.crifresh.coordinator.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.base.InternalIps;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drivers run real processes: a stand-in talosctl script records its arguments. */
class DriverTest {
    @TempDir
    Path dir;

    private static Node node(String name, String... ips) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus()
                .addNewAddress().withType("Hostname").withAddress(name).endAddress().endStatus();
        for (String ip : ips) {
            b.editStatus().addNewAddress().withType("InternalIP").withAddress(ip).endAddress().endStatus();
        }
        return b.build();
    }

    private Path script(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void talosctlIsCalledWithTheInternalIpAndNoWait() throws Exception {
        Path args = dir.resolve("args");
        Path talosctl = script("talosctl", "printf '%s\\n' \"$@\" > " + args);
        TalosctlDriver driver = new TalosctlDriver(talosctl.toString(), Path.of("/etc/talos/config"), new ProcessRunner(Duration.ofSeconds(10)));
        Node n = node("w1", "10.0.0.7");
        driver.check(n, List.of(n, node("w2", "10.0.0.8")));
        driver.reboot(n);
        assertEquals(List.of("--talosconfig", "/etc/talos/config", "-n", "10.0.0.7", "reboot", "--wait=false"), Files.readAllLines(args));
        assertEquals(List.of(talosctl.toString(), "-n", "10.0.0.7", "reboot", "--wait=false"),
                new TalosctlDriver(talosctl.toString(), null, new ProcessRunner(Duration.ofSeconds(1))).argv(n));
    }

    @Test
    void aMissingOrSharedInternalIpFailsTheCheck() {
        TalosctlDriver driver = new TalosctlDriver("talosctl", null, new ProcessRunner(Duration.ofSeconds(1)));
        Node none = node("w1");
        IllegalStateException missing = assertThrows(IllegalStateException.class, () -> driver.check(none, List.of(none)));
        assertEquals("node w1 has no InternalIP in status.addresses", missing.getMessage());
        Node a = node("w1", "10.0.0.7");
        Node b = node("w2", "10.0.0.7");
        IllegalStateException shared = assertThrows(IllegalStateException.class, () -> driver.check(a, List.of(a, b)));
        assertEquals("node w1 shares its InternalIP 10.0.0.7 with node w2", shared.getMessage());
    }

    @Test
    void internalIpsSkipOtherAddressTypesAndBlanksAndKeepStatusOrder() {
        Node n = node("w1", " ", "10.0.0.9 ", "10.0.0.7");
        assertEquals(List.of("10.0.0.9", "10.0.0.7"), InternalIps.all(n));
        assertEquals("10.0.0.9", InternalIps.of(n));
        assertEquals("10.0.0.9", InternalIps.require(n));
        Node none = node("w2");
        assertEquals(List.of(), InternalIps.all(none));
        assertEquals(null, InternalIps.of(none));
        IllegalStateException missing = assertThrows(IllegalStateException.class, () -> InternalIps.require(none));
        assertEquals("node w2 has no InternalIP in status.addresses", missing.getMessage());
        IllegalStateException command = assertThrows(IllegalStateException.class,
                () -> new CommandDriver(CommandTemplate.parse("reboot-node {ip}"), new ProcessRunner(Duration.ofSeconds(1))).argv(none));
        assertEquals(missing.getMessage(), command.getMessage());
    }

    @Test
    void aFailingCommandReportsItsExitCodeAndLastLine() throws Exception {
        Path talosctl = script("talosctl", "echo 'connecting'; echo 'rpc error: connection refused' >&2; exit 3");
        TalosctlDriver driver = new TalosctlDriver(talosctl.toString(), null, new ProcessRunner(Duration.ofSeconds(10)));
        IOException e = assertThrows(IOException.class, () -> driver.reboot(node("w1", "10.0.0.7")));
        assertEquals(talosctl + " exited with 3: rpc error: connection refused", e.getMessage());
    }

    @Test
    void aHangingCommandIsKilledAfterItsTimeout() throws Exception {
        Path slow = script("slow", "sleep 30");
        IOException e = assertThrows(IOException.class, () -> new ProcessRunner(Duration.ofMillis(200)).run(List.of(slow.toString())));
        assertTrue(e.getMessage().contains("did not finish within"), e.getMessage());
    }

    @Test
    void commandTemplatesAreSplitWithoutAShellAndSubstitutedPerWord() throws Exception {
        CommandTemplate t = CommandTemplate.parse("ssh -o 'StrictHostKeyChecking no' admin@{ip} \"sudo reboot --node {node}\" x\\ y");
        assertEquals(List.of("ssh", "-o", "StrictHostKeyChecking no", "admin@10.0.0.7", "sudo reboot --node w1; rm -rf /", "x y"),
                t.argv("w1; rm -rf /", "10.0.0.7"));
        assertTrue(t.usesIp());
        assertThrows(IllegalArgumentException.class, () -> CommandTemplate.parse("echo 'unbalanced"));
        assertThrows(IllegalArgumentException.class, () -> CommandTemplate.parse("  "));

        Path out = dir.resolve("out");
        Path record = script("record", "printf '%s\\n' \"$@\" > " + out);
        CommandDriver driver = new CommandDriver(CommandTemplate.parse(record + " {node} {ip}"), new ProcessRunner(Duration.ofSeconds(10)));
        Node n = node("w 1", "10.0.0.9");
        driver.check(n, List.of(n));
        driver.reboot(n);
        assertEquals(List.of("w 1", "10.0.0.9"), Files.readAllLines(out));
    }

    @Test
    void aCommandWithoutIpDoesNotNeedOne() throws Exception {
        CommandDriver driver = new CommandDriver(CommandTemplate.parse("true {node}"), new ProcessRunner(Duration.ofSeconds(10)));
        Node n = node("w1");
        driver.check(n, List.of(n));
        driver.reboot(n);
    }
}
