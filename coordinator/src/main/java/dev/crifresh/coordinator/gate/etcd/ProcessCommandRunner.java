package dev.crifresh.coordinator.gate.etcd;

import dev.crifresh.common.text.DurationText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a process without a shell, capturing stdout and stderr apart (each bounded), within a timeout. */
public final class ProcessCommandRunner implements CommandRunner {
    private static final int MAX_OUTPUT = 256 * 1024;

    private final Duration timeout;

    public ProcessCommandRunner(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public CommandOutput run(List<String> argv) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(argv).start();
        } catch (IOException e) {
            throw new IOException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
        }
        process.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread outReader = reader(process.getInputStream(), out, "etcd-check-stdout");
        Thread errReader = reader(process.getErrorStream(), err, "etcd-check-stderr");
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IOException(argv.get(0) + " did not finish within "
                    + DurationText.format(timeout));
        }
        outReader.join(1000);
        errReader.join(1000);
        synchronized (out) {
            synchronized (err) {
                return new CommandOutput(process.exitValue(), out.toString(StandardCharsets.UTF_8),
                        err.toString(StandardCharsets.UTF_8));
            }
        }
    }

    private static Thread reader(InputStream in, ByteArrayOutputStream sink, String name) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[4096];
            try (in) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    synchronized (sink) {
                        if (sink.size() < MAX_OUTPUT) {
                            sink.write(buf, 0, Math.min(n, MAX_OUTPUT - sink.size()));
                        }
                    }
                }
            } catch (IOException ignored) {
                // the process ended; what was read is what there is
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
