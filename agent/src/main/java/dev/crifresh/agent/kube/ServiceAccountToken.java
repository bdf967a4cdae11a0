package dev.crifresh.agent.kube;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The pod's bound service-account token. The kubelet rewrites the file well before the token expires
 * (it lives about an hour), so the token is read again when the copy in memory is older than
 * {@code maxAge} (client-go re-reads every minute), and at once after the API server answered 401 to
 * it. The token never appears in a message or a log line.
 */
public final class ServiceAccountToken {
    /** client-go's period for re-reading the file. */
    public static final Duration DEFAULT_MAX_AGE = Duration.ofMinutes(1);

    private final Path file;
    private final long maxAgeNanos;
    private final LongSupplier nanoTime;
    private String token;
    private long readAtNanos;

    public ServiceAccountToken(Path file, Duration maxAge, LongSupplier nanoTime) {
        this.file = file;
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoTime = nanoTime;
    }

    public ServiceAccountToken(Path file) {
        this(file, DEFAULT_MAX_AGE, System::nanoTime);
    }

    /** The current token; reads the file when the copy is missing, stale or was rejected. Blocking (a file read). */
    public synchronized String get() throws IOException {
        long now = nanoTime.getAsLong();
        if (token == null || now - readAtNanos >= maxAgeNanos) {
            String read = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (read.isEmpty()) {
                throw new IOException("service account token file " + file + " is empty");
            }
            token = read;
            readAtNanos = now;
        }
        return token;
    }

    /** The API server answered 401 to {@code rejected}: the next {@link #get()} reads the file again. */
    public synchronized void rejected(String rejected) {
        if (token != null && token.equals(rejected)) {
            token = null;
        }
    }

    public Path file() {
        return file;
    }
}
