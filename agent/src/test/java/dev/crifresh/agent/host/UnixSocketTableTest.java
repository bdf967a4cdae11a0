package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.ContainerdListener;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /proc/<pid>/net/unix} as the kernel prints it: lines in its format (parser), and the real table of this
 * JVM's network namespace with real sockets bound at a private path (the machine's own sockets are not touched).
 * Threat model: ordinary states of a containerd (listening, not yet bound, exited with its socket file left
 * behind); a name bound to forge a line is a hostile process on the node, outside the model.
 */
class UnixSocketTableTest {
    private static final String HEADER = "Num       RefCount Protocol Flags    Type St Inode Path\n";
    private static final String SOCK = "/run/containerd/containerd.sock";

    @TempDir
    Path dir;

    private static ContainerdListener at(String table, String address) {
        return UnixSocketTable.listenerAt(UnixSocketTable.parse(table), address);
    }

    @Test
    void aListeningStreamSocketAtTheAddressListens() {
        String table = HEADER
                + "0000000000000000: 00000002 00000000 00010000 0001 01 250051 /run/containerd/containerd.sock.ttrpc\n"
                + "0000000000000000: 00000002 00000000 00010000 0001 01 250057 /run/containerd/containerd.sock\n"
                + "0000000000000000: 00000003 00000000 00000000 0001 03 259206 /run/containerd/containerd.sock\n";
        assertTrue(at(table, SOCK).isListening());
    }

    @Test
    void onlyTheExactPathCounts() {
        String table = HEADER
                + "0000000000000000: 00000002 00000000 00010000 0001 01 250051 /run/containerd/containerd.sock.ttrpc\n"
                + "0000000000000000: 00000002 00000000 00010000 0001 01 250052 /system/run/containerd/containerd.sock\n"
                + "0000000000000000: 00000002 00000000 00010000 0001 01 250053 run/containerd/containerd.sock\n";
        ContainerdListener l = at(table, SOCK);
        assertEquals(ContainerdListener.State.NOT_LISTENING, l.state());
        assertEquals("no socket is bound there", l.detail());
    }

    @Test
    void acceptedConnectionsCarryThePathButDoNotListen() {
        // containerd exited while kubelet's connection was still open on the server side: state 03, no ACCEPTCON
        String table = HEADER
                + "000000006134b9d2: 00000003 00000000 00000000 0001 03 259206 /run/containerd/containerd.sock\n";
        ContainerdListener l = at(table, SOCK);
        assertEquals(ContainerdListener.State.NOT_LISTENING, l.state());
        assertEquals("1 socket(s) bound there, none listening", l.detail());
    }

    @Test
    void aBoundButNotListeningOrDatagramSocketDoesNotListen() {
        String table = HEADER
                + "0000000000000000: 00000002 00000000 00000000 0001 01 250057 /run/containerd/containerd.sock\n"
                + "0000000000000000: 00000002 00000000 00010000 0002 01 250058 /run/containerd/containerd.sock\n"
                + "0000000000000000: 00000002 00000000 00010000 0005 01 250059 /run/containerd/containerd.sock\n";
        assertEquals(ContainerdListener.State.NOT_LISTENING, at(table, SOCK).state());
    }

    @Test
    void unboundSocketsHaveNoPathAndShortInodesArePadded() {
        UnixSocketTable.Parsed p = UnixSocketTable.parse(HEADER
                + "0000000000000000: 00000003 00000000 00000000 0001 03 343631\n"
                + "0000000000000000: 00000002 00000000 00010000 0001 01    42 /tmp/a b\n");
        assertEquals(0, p.skipped());
        assertNull(p.entries().get(0).path());
        assertEquals(42, p.entries().get(1).inode());
        assertEquals("/tmp/a b", p.entries().get(1).path(), "a path keeps its spaces");
    }

    @Test
    void abstractNamesAreComparedWithTheirAt() {
        // Go's net.Listen("unix", "@name") binds the abstract name; the kernel prints it with a leading @
        String table = HEADER + "0000000000000000: 00000002 00000000 00010000 0001 01 260001 @crifresh-test\n";
        assertTrue(at(table, "@crifresh-test").isListening());
        assertFalse(at(table, "crifresh-test").isListening());
        assertFalse(at(table, "/crifresh-test").isListening());
    }

    @Test
    void junkLinesAreSkippedAndCountedAndABrokenNameCannotMatch() {
        // a name holding a newline continues on a line of its own: not a socket
        String table = HEADER
                + "0000000000000000: 00000002 00000000 00010000 0001 01 260002 @x\n"
                + "/run/containerd/containerd.sock\n"
                + "garbage\n"
                + "0000000000000000: 00000002 00000000 00010000 0001 01 99999999999999999999999 " + SOCK + "\n"
                + "\n";
        UnixSocketTable.Parsed p = UnixSocketTable.parse(table);
        assertEquals(1, p.entries().size());
        assertEquals(4, p.skipped());
        assertEquals(ContainerdListener.State.NOT_LISTENING, at(table, SOCK).state());
    }

    @Test
    void aTableWithoutTheKernelsHeaderIsNotRead() {
        assertThrows(IllegalArgumentException.class, () -> UnixSocketTable.parse(""));
        assertThrows(IllegalArgumentException.class, () -> UnixSocketTable.parse(
                "0000000000000000: 00000002 00000000 00010000 0001 01 250057 " + SOCK + "\n"));
    }

    @Test
    void anEmptyOrUndecodableAddressIsUnreadable() {
        assertEquals(ContainerdListener.State.UNREADABLE, at(HEADER, "").state());
        assertEquals(ContainerdListener.State.UNREADABLE, at(HEADER, "/run/\uFFFD.sock").state());
    }

    @Test
    void aMissingTableIsUnreadable() {
        ContainerdListener l = UnixSocketTable.read(dir, 4242, SOCK);
        assertEquals(ContainerdListener.State.UNREADABLE, l.state());
        assertTrue(l.detail().contains("/4242/net/unix"), l.detail());
    }

    @Test
    void theKernelsOwnTableShowsARealListenerUntilItIsClosedWhileItsFileStays() throws Exception {
        long self = ProcessHandle.current().pid();
        Path socket = dir.resolve("c.sock");
        String address = socket.toString();
        assertEquals("no socket is bound there", UnixSocketTable.read(Path.of("/proc"), self, address).detail());
        try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            SocketChannel accepted;
            try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                server.bind(UnixDomainSocketAddress.of(socket));
                assertTrue(UnixSocketTable.read(Path.of("/proc"), self, address).isListening());
                client.connect(UnixDomainSocketAddress.of(socket));
                accepted = server.accept();
            }
            try (accepted) {
                // the file stays, the accepted connection carries the path, nothing listens
                assertTrue(Files.exists(socket));
                assertTrue(client.isConnected() && accepted.isConnected(), "the connection outlives its listener");
                ContainerdListener closed = UnixSocketTable.read(Path.of("/proc"), self, address);
                assertEquals(ContainerdListener.State.NOT_LISTENING, closed.state());
                assertEquals("1 socket(s) bound there, none listening", closed.detail());
            }
        }
        assertTrue(Files.exists(socket), "a closed socket's file stays on disk");
        assertEquals("no socket is bound there", UnixSocketTable.read(Path.of("/proc"), self, address).detail());
    }
}
