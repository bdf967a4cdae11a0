package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * {@code java -jar sim/target/crifresh-sim.jar serve} as a real process in a temporary directory, for the *IT
 * tests that drive it from outside (the GitHub Action's script, a real Prometheus). Its files are under
 * {@code <dir>/crifresh-sim/}: kubeconfig, trust/, credential.json, targets.json.
 */
final class ServeProcess implements AutoCloseable {
    static final Path REPO = Path.of("").toAbsolutePath().getParent();
    static final Path SIM_JAR = REPO.resolve("sim/target/crifresh-sim.jar");
    static final Path COORDINATOR_JAR = REPO.resolve("coordinator/target/crifresh-coordinator.jar");

    final Path dir;
    private final Process process;

    private ServeProcess(Path dir, Process process) {
        this.dir = dir;
        this.process = process;
    }

    /** Skips unless run after package (the integration-test phase), which builds the jars. */
    static void requirePackagedJars() {
        Assumptions.assumeTrue(Boolean.getBoolean("crifresh.after-package"),
                "runs in the integration-test phase, after package has built the jars it runs");
        assertTrue(Files.isRegularFile(SIM_JAR), SIM_JAR + " is missing");
        assertTrue(Files.isRegularFile(COORDINATOR_JAR), COORDINATOR_JAR + " is missing");
    }

    static ServeProcess start(Path dir, String... extraArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(java(), "-jar", SIM_JAR.toString(), "serve",
                "--kubeconfig", dir.resolve("crifresh-sim/kubeconfig").toString(),
                "--prometheus-targets", dir.resolve("crifresh-sim/targets.json").toString()));
        command.addAll(List.of(extraArgs));
        Process p = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(dir.resolve("serve.out").toFile()).redirectError(dir.resolve("serve.err").toFile()).start();
        ServeProcess serve = new ServeProcess(dir, p);
        Poll.until(Duration.ofMinutes(3), "serve to be ready", () -> !p.isAlive() || serve.out().contains("Serving until Ctrl-C."));
        if (!p.isAlive()) {
            fail("serve exited: " + serve.out() + read(dir.resolve("serve.err")));
        }
        return serve;
    }

    Path kubeconfig() {
        return dir.resolve("crifresh-sim/kubeconfig");
    }

    Path trust() {
        return dir.resolve("crifresh-sim/trust");
    }

    Path credential() {
        return dir.resolve("crifresh-sim/credential.json");
    }

    Path targets() {
        return dir.resolve("crifresh-sim/targets.json");
    }

    String out() {
        return read(dir.resolve("serve.out"));
    }

    /** The java running this test: the jars run on the same JDK. */
    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while serve stopped", e);
        }
    }
}
