package dev.crifresh.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs one external tool to completion, output captured in files (no pipe can fill up and block it). */
final class Command {

    record Result(List<String> command, int exit, String stdout, String stderr) {
        Result check() {
            if (exit != 0) {
                throw new AssertionError(String.join(" ", command) + " exited " + exit + "\nstdout:\n" + tail(stdout)
                        + "\nstderr:\n" + tail(stderr));
            }
            return this;
        }

        private static String tail(String text) {
            return text.length() <= 8000 ? text : "..." + text.substring(text.length() - 8000);
        }
    }

    private Command() {
    }

    static Result run(Duration timeout, List<String> command) {
        return run(timeout, command, Map.of());
    }

    static Result run(Duration timeout, List<String> command, Map<String, String> env) {
        try {
            Path out = Files.createTempFile("crifresh-cmd-", ".out");
            Path err = Files.createTempFile("crifresh-cmd-", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile())
                        .redirectError(err.toFile());
                builder.environment().putAll(env);
                Process process = builder.start();
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(30, TimeUnit.SECONDS);
                    throw new AssertionError("no answer within " + timeout + ": " + String.join(" ", command) + "\n"
                            + Files.readString(out, StandardCharsets.UTF_8) + Files.readString(err, StandardCharsets.UTF_8));
                }
                return new Result(List.copyOf(command), process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + command, e);
        }
    }

    static List<String> of(Object... parts) {
        List<String> out = new ArrayList<>();
        for (Object part : parts) {
            if (part instanceof List<?> list) {
                list.forEach(e -> out.add(e.toString()));
            } else {
                out.add(part.toString());
            }
        }
        return out;
    }

    /** The tool on PATH (or in /usr/sbin, /sbin, which a non-login PATH may lack), else null. */
    static Path which(String tool) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir, tool);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
