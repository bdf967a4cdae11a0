package dev.crifresh.reality;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A registry that only listens: one tiny image ({@link OciLayout}) served over the OCI distribution API on several
 * loopback ports, each port one registry host ({@code 127.0.0.1:<port>}), recording the {@code Authorization}
 * header of every request per host. A request without the header, or with one other than the host's accepted
 * header, is answered {@code 401} with {@code WWW-Authenticate: Basic} (so containerd sends the credential it holds,
 * once, and gives up when it is refused); by default no header is accepted, so a pull ends after containerd has
 * shown what it sends. The recorded headers are what containerd sent: the judge of the differential test.
 */
final class RecordingRegistry implements AutoCloseable {
    /** One request a host received: its method, path and {@code Authorization} header (null when absent). */
    record Request(String host, String method, String path, String authorization) {
        @Override
        public String toString() {
            // never the header itself: it is a credential
            return method + " " + host + path + (authorization == null ? " (no Authorization)" : " (Authorization)");
        }
    }

    private final List<ServerSocket> servers = new ArrayList<>();
    private final List<String> hosts = new ArrayList<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, String> accepted = new ConcurrentHashMap<>();
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "recording-registry");
        t.setDaemon(true);
        return t;
    });
    private final Path blobs;
    private final String manifestDigest;
    private final byte[] manifest;

    private RecordingRegistry(Path blobs, String manifestDigest) throws IOException {
        this.blobs = blobs;
        this.manifestDigest = manifestDigest;
        this.manifest = Files.readAllBytes(blobs.resolve(manifestDigest.substring("sha256:".length())));
    }

    /** Starts {@code count} hosts on loopback ports the kernel chooses, serving the image written into {@code dir}. */
    static RecordingRegistry start(Path dir, int count) {
        OciLayout image = OciLayout.write(dir, "v1", "differential");
        try {
            RecordingRegistry r = new RecordingRegistry(dir.resolve("blobs/sha256"), image.manifestDigest());
            for (int i = 0; i < count; i++) {
                ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
                String host = "127.0.0.1:" + server.getLocalPort();
                r.servers.add(server);
                r.hosts.add(host);
                r.executor.execute(() -> r.accept(server, host));
            }
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the recording registry", e);
        }
    }

    /** The registry hosts, {@code 127.0.0.1:<port>}, in the order they were started. */
    List<String> hosts() {
        return List.copyOf(hosts);
    }

    /** From now on {@code host} answers {@code authorization} (a whole header value) with the image; null: none. */
    void accept(String host, String authorization) {
        if (authorization == null) {
            accepted.remove(host);
        } else {
            accepted.put(host, authorization);
        }
    }

    /** The image's reference on {@code host}. */
    static String image(String host) {
        return host + "/differential/probe:v1";
    }

    /** Every request recorded since the last {@link #clear()}, in arrival order. */
    List<Request> requests() {
        return List.copyOf(requests);
    }

    void clear() {
        requests.clear();
    }

    private void accept(ServerSocket server, String host) {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                executor.execute(() -> serve(socket, host));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /**
     * One request per connection ({@code Connection: close}). A TLS handshake (containerd 2.x tries HTTPS first
     * on a loopback host) is answered at once with a plain-HTTP 400, as Go's server does, so the client falls back
     * to HTTP instead of waiting for its handshake timeout.
     */
    private void serve(Socket socket, String host) {
        try (socket) {
            socket.setSoTimeout(30_000);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            in.mark(1);
            int first = in.read();
            if (first < 0) {
                return;
            }
            if (first == 0x16) {
                out.write("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
                        .getBytes(StandardCharsets.US_ASCII));
                return;
            }
            in.reset();
            String requestLine = line(in);
            String[] parts = requestLine.split(" ");
            if (parts.length < 2) {
                return;
            }
            String authorization = null;
            for (String header = line(in); !header.isEmpty(); header = line(in)) {
                int colon = header.indexOf(':');
                if (colon > 0 && header.substring(0, colon).trim().equalsIgnoreCase("Authorization")) {
                    authorization = header.substring(colon + 1).trim();
                }
            }
            String method = parts[0];
            String path = parts[1].contains("?") ? parts[1].substring(0, parts[1].indexOf('?')) : parts[1];
            requests.add(new Request(host, method, path, authorization));
            respond(out, method, path, authorization != null && authorization.equals(accepted.get(host)));
        } catch (SocketException e) {
            // the client went away
        } catch (IOException e) {
            // one broken connection: the client sees it, as with any registry
        }
    }

    private void respond(OutputStream out, String method, String path, boolean authorized) throws IOException {
        if (!authorized) {
            write(out, 401, List.of("WWW-Authenticate: Basic realm=\"crifresh-differential\""), null, method);
            return;
        }
        if (path.equals("/v2/") || path.equals("/v2")) {
            write(out, 200, List.of("Content-Type: application/json"), "{}".getBytes(StandardCharsets.UTF_8), method);
        } else if (path.startsWith("/v2/differential/probe/manifests/")) {
            String ref = path.substring(path.lastIndexOf('/') + 1);
            if (!ref.equals("v1") && !ref.equals(manifestDigest)) {
                write(out, 404, List.of(), null, method);
                return;
            }
            write(out, 200, List.of("Content-Type: application/vnd.oci.image.manifest.v1+json",
                    "Docker-Content-Digest: " + manifestDigest), manifest, method);
        } else if (path.startsWith("/v2/differential/probe/blobs/sha256:")) {
            Path blob = blobs.resolve(path.substring(path.lastIndexOf(':') + 1)).normalize();
            if (!blob.startsWith(blobs) || !Files.isRegularFile(blob)) {
                write(out, 404, List.of(), null, method);
                return;
            }
            write(out, 200, List.of("Content-Type: application/octet-stream",
                    "Docker-Content-Digest: sha256:" + blob.getFileName()), Files.readAllBytes(blob), method);
        } else {
            write(out, 404, List.of(), null, method);
        }
    }

    private static void write(OutputStream out, int status, List<String> headers, byte[] body, String method)
            throws IOException {
        String reason = switch (status) {
            case 200 -> "OK";
            case 401 -> "Unauthorized";
            default -> "Not Found";
        };
        StringBuilder head = new StringBuilder("HTTP/1.1 " + status + " " + reason + "\r\n");
        head.append("Docker-Distribution-API-Version: registry/2.0\r\nConnection: close\r\n");
        headers.forEach(h -> head.append(h).append("\r\n"));
        head.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
        if (body != null && !method.equals("HEAD")) {
            out.write(body);
        }
        out.flush();
    }

    /** One CRLF-terminated line (at most 16 KiB), without its terminator. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            if (c != '\r') {
                b.write(c);
            }
            if (b.size() > 16_384) {
                throw new IOException("header line too long");
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        for (ServerSocket s : servers) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        executor.shutdownNow();
    }
}
