package dev.crifresh.coordinator.driver;

import dev.crifresh.common.text.DurationText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one external command without a shell, within a timeout, capturing stdout and stderr apart (each bounded).
 * The reboot drivers use {@link #run} (fails with the command's last output line); the etcd gate reads the output
 * whatever the exit code ({@link #capture}).
 */
public final class ProcessRunner {
    private static final int MAX_OUTPUT = 256 * 1024;

    /** What the command printed, and how it exited. */
    public record Output(int exitCode, String stdout, String stderr) {
    }

    private final Duration timeout;

    public ProcessRunner(Duration timeout) {
        this.timeout = timeout;
    }

    /** Runs the command; fails when it exits non-zero, with its last line of output (stderr's, else stdout's). */
    public void run(List<String> argv) throws IOException, InterruptedException {
        Output out = capture(argv);
        if (out.exitCode() != 0) {
            throw new IOException(argv.get(0) + " exited with " + out.exitCode() + lastLine(out));
        }
    }

    /** @throws IOException when the command cannot be started or does not finish in time */
    public Output capture(List<String> argv) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(argv).start();
        } catch (IOException e) {
            throw new IOException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
        }
        process.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread outReader = reader(process.getInputStream(), out, "command-stdout");
        Thread errReader = reader(process.getErrorStream(), err, "command-stderr");
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IOException(argv.get(0) + " did not finish within " + DurationText.format(timeout));
        }
        outReader.join(1000);
        errReader.join(1000);
        synchronized (out) {
            synchronized (err) {
                return new Output(process.exitValue(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
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

    private static String lastLine(Output out) {
        String text = out.stderr().isBlank() ? out.stdout().strip() : out.stderr().strip();
        if (text.isEmpty()) {
            return "";
        }
        String[] lines = text.split("\\R");
        return ": " + lines[lines.length - 1];
    }
}
