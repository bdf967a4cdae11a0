package dev.crifresh.coordinator.driver;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs one external command without a shell and fails with its last output line when it fails. */
public final class ProcessRunner {
    private static final int MAX_OUTPUT = 8192;

    private final Duration timeout;

    public ProcessRunner(Duration timeout) {
        this.timeout = timeout;
    }

    public void run(List<String> argv) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
        }
        process.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> copy(process.getInputStream(), out), "reboot-command-output");
        reader.setDaemon(true);
        reader.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IOException(argv.get(0) + " did not finish within " + timeout.toSeconds() + "s");
        }
        reader.join(1000);
        int code = process.exitValue();
        if (code != 0) {
            throw new IOException(argv.get(0) + " exited with " + code + lastLine(out));
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        byte[] buf = new byte[1024];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (out) {
                    if (out.size() < MAX_OUTPUT) {
                        out.write(buf, 0, Math.min(n, MAX_OUTPUT - out.size()));
                    }
                }
            }
        } catch (IOException ignored) {
            // the process ended; what was read is enough for the error message
        }
    }

    private static String lastLine(ByteArrayOutputStream out) {
        String text;
        synchronized (out) {
            text = out.toString(StandardCharsets.UTF_8).strip();
        }
        if (text.isEmpty()) {
            return "";
        }
        String[] lines = text.split("\\R");
        return ": " + lines[lines.length - 1];
    }
}
