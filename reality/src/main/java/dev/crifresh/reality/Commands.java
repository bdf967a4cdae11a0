package dev.crifresh.reality;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short external command to completion: its exit code and its output (stdout and stderr together). */
public final class Commands {
    private Commands() {
    }

    /** @param exitCode the process's exit code; @param output stdout and stderr, merged */
    public record Result(int exitCode, String output) {
        public boolean ok() {
            return exitCode == 0;
        }
    }

    /** Runs {@code argv}; a command that is still running after 60 s is killed and reported. */
    public static Result run(List<String> argv) {
        try {
            Path out = Files.createTempFile("crifresh-cmd", ".log");
            try {
                Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(out.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                    return new Result(-1, "timed out after 60 s: " + String.join(" ", argv));
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            return new Result(-1, "cannot run " + argv.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + argv.get(0), e);
        }
    }

    /** Runs {@code argv} and fails with its output unless it exits 0. */
    public static String check(List<String> argv) {
        Result r = run(argv);
        if (!r.ok()) {
            throw new IllegalStateException(String.join(" ", argv) + " exited " + r.exitCode() + ": " + r.output().strip());
        }
        return r.output();
    }

    static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
