package dev.crifresh.mockapi.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on the loopback address that can cut one client off from a server: connection-level
 * faults for tests, the part a dispatcher cannot do. Bytes pass through unchanged (HTTP, TLS, WebSocket
 * watches alike). Modes, switchable at any time from any thread:
 * <ul>
 *   <li>{@link #pass()} — forward everything (the default); bytes held by a hang are delivered now;</li>
 *   <li>{@link #refuse()} — reset every open connection and every new one at once (the client sees
 *       "connection reset"; like a host that actively refuses);</li>
 *   <li>{@link #hang()} — forward nothing in either direction; new connections are accepted and then
 *       stay silent (like packets dropped by a partition: the client's own timeouts must fire). What was
 *       sent meanwhile is held and delivered late on {@link #pass()}, like retransmitted packets;</li>
 *   <li>{@link #delay(Duration)} — forward, but hold every chunk for that long first (slow answers).</li>
 * </ul>
 * One thread per direction per connection: meant for tests with a handful of connections.
 */
public final class TcpProxy implements AutoCloseable {
    private enum Mode { PASS, REFUSE, HANG }

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private volatile Mode mode = Mode.PASS;
    private volatile long delayMillis;
    private volatile boolean closed;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "tcp-proxy-accept-" + listener.getLocalPort());
        accept.setDaemon(true);
        accept.start();
    }

    /** Starts a proxy on a free loopback port that forwards to {@code host:port}. */
    public static TcpProxy to(String host, int port) {
        try {
            return new TcpProxy(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** {@code http://<loopback>:<port>}: the URL a client uses instead of the server's. */
    public String httpUrl() {
        return "http://" + listener.getInetAddress().getHostAddress() + ":" + port();
    }

    /** Forwards everything again; held bytes go out now. */
    public void pass() {
        synchronized (gate) {
            mode = Mode.PASS;
            gate.notifyAll();
        }
    }

    /** Resets every connection, open and new, until {@link #pass()}. */
    public void refuse() {
        synchronized (gate) {
            mode = Mode.REFUSE;
            gate.notifyAll();
        }
        open.forEach(TcpProxy::reset);
    }

    /** Forwards nothing until {@link #pass()}; connections stay open and silent. */
    public void hang() {
        synchronized (gate) {
            mode = Mode.HANG;
        }
    }

    /** Holds every chunk for {@code delay} before forwarding it ({@link Duration#ZERO}: no delay). */
    public void delay(Duration delay) {
        delayMillis = Math.max(0, delay.toMillis());
    }

    private void acceptLoop() {
        while (!closed) {
            Socket downstream;
            try {
                downstream = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (mode == Mode.REFUSE) {
                reset(downstream);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(target, 5_000);
            } catch (IOException e) {
                reset(downstream);
                continue;
            }
            try {
                // Small writes go out at once: Nagle's algorithm with delayed ACKs would add up to 200 ms a request.
                downstream.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (SocketException ignored) {
                // forwarding still works, only slower
            }
            open.add(downstream);
            open.add(upstream);
            pump(downstream, upstream, "up");
            pump(upstream, downstream, "down");
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (!awaitPassing()) {
                        break;
                    }
                    long d = delayMillis;
                    if (d > 0) {
                        Thread.sleep(d);
                    }
                    if (!awaitPassing()) {
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the connection ended (or was reset by refuse()/close())
            } finally {
                close(from);
                close(to);
            }
        }, "tcp-proxy-" + direction + "-" + port());
        t.setDaemon(true);
        t.start();
    }

    /** Waits while hung; false when the connection must be reset instead. */
    private boolean awaitPassing() throws InterruptedException {
        synchronized (gate) {
            while (mode == Mode.HANG && !closed) {
                gate.wait(100);
            }
            return mode == Mode.PASS && !closed;
        }
    }

    private void close(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (SocketException ignored) {
            // closing anyway
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // already closed
        }
        synchronized (gate) {
            gate.notifyAll();
        }
        open.forEach(TcpProxy::reset);
        open.clear();
    }
}
