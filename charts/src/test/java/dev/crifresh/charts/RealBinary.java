package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Debian tool the tests run. Missing: the test is skipped with one line saying why, except under
 * {@code CI=true}, where a missing tool fails it (.ci/run installs them).
 */
record RealBinary(Path path, String debianPackage) {
    static final RealBinary PROMTOOL = new RealBinary(Path.of("/usr/bin/promtool"), "prometheus");

    RealBinary require() {
        if (!Files.isExecutable(path)) {
            String why = path + " is missing (Debian: apt-get install " + debianPackage + "; .ci/run installs it)";
            if ("true".equals(System.getenv("CI"))) {
                fail(why);
            }
            Assumptions.abort(why);
        }
        return this;
    }

    record Run(int exit, String output) {
    }

    /** Runs the tool in {@code dir}, stdout and stderr together. */
    Run run(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(path.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail(command + " did not finish within 2 minutes");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }
}
