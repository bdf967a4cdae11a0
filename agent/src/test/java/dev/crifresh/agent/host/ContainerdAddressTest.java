package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which address containerd binds, as it resolves it: flag, else the last loaded file's, else its default. */
class ContainerdAddressTest {
    private static final List<String> NO_FLAG = List.of("/usr/bin/containerd", "--config", "/etc/containerd/config.toml");

    private static ConfigDocument doc(String text) {
        return new ConfigDocument("/etc/containerd/x.toml", text);
    }

    @Test
    void theFlagWinsOverTheConfig() {
        assertEquals("/run/containerd/containerd.sock", ContainerdAddress.of(List.of("/bin/containerd", "--address",
                "/run/containerd/containerd.sock"), List.of(doc("[grpc]\naddress = '/other.sock'\n"))).address());
        assertEquals("/a.sock", ContainerdAddress.of(List.of("containerd", "-a=/a.sock"), List.of()).address());
        assertEquals("@abstract", ContainerdAddress.of(List.of("containerd", "-a", "@abstract"), List.of()).address());
    }

    @Test
    void twoDifferentFlagsCannotBeTold() {
        ContainerdAddress.Resolved r = ContainerdAddress.of(List.of("containerd", "-a", "/a.sock", "--address",
                "/b.sock"), List.of());
        assertNull(r.address());
        assertEquals("its command line names 2 addresses", r.problem());
    }

    @Test
    void withoutTheFlagTheLastLoadedFileThatSetsOneElseTheDefault() {
        assertEquals(ContainerdAddress.DEFAULT, ContainerdAddress.of(NO_FLAG, List.of(doc("version = 2\n"))).address());
        assertEquals("/b.sock", ContainerdAddress.of(NO_FLAG, List.of(doc("version = 2\n[grpc]\naddress = '/a.sock'\n"),
                doc("version = 2\n[grpc]\naddress = '/b.sock'\n"), doc("version = 2\n"))).address());
        assertEquals("/c.sock", ContainerdAddress.of(NO_FLAG, List.of(
                doc("version = 4\n[plugins.'io.containerd.server.v1.grpc']\naddress = '/c.sock'\n"))).address());
        assertEquals(ContainerdAddress.DEFAULT, ContainerdAddress.of(NO_FLAG, List.of(doc("[grpc\nbroken"))).address());
    }
}
