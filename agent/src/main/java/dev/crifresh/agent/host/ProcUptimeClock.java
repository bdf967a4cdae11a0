package dev.crifresh.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/** {@link HostClock} on the real wall clock and {@code /proc/uptime} ({@code "12345.67 23456.78"}). */
final class ProcUptimeClock implements HostClock {
    private final Path uptimeFile;

    ProcUptimeClock(Path uptimeFile) {
        this.uptimeFile = uptimeFile;
    }

    @Override
    public Instant wallNow() {
        return Instant.now();
    }

    @Override
    public Duration uptime() throws IOException {
        return parse(Files.readString(uptimeFile), uptimeFile);
    }

    static Duration parse(String content, Path source) throws IOException {
        String first = content.trim().split("\\s+")[0];
        int dot = first.indexOf('.');
        try {
            long seconds = Long.parseLong(dot < 0 ? first : first.substring(0, dot));
            long nanos = 0;
            if (dot >= 0) {
                String fraction = (first.substring(dot + 1) + "000000000").substring(0, 9);
                nanos = Long.parseLong(fraction);
            }
            if (seconds < 0) {
                throw new NumberFormatException("negative");
            }
            return Duration.ofSeconds(seconds, nanos);
        } catch (NumberFormatException e) {
            throw new IOException(source + ": not an uptime: '" + first + "'");
        }
    }
}
