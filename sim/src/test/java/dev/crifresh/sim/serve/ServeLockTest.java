package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One serve per directory: a second serve in the same checkout is refused, naming the running one, and leaves
 * its files alone; a serve that died (killed, no clean-up) does not block the next one.
 */
class ServeLockTest {
    @TempDir
    Path dir;

    @Test
    void aSecondServeInTheSameProcessIsRefusedAndTheFirstKeepsItsFiles() throws Exception {
        ServeFiles first = new ServeFiles(dir.resolve("sim/kubeconfig"), null);
        first.lock();
        first.lockServing("http://127.0.0.1:40001");
        first.writeKubeconfig("http://127.0.0.1:40001");
        ServeFiles second = new ServeFiles(dir.resolve("sim/kubeconfig"), null);
        ServeUsageException e = assertThrows(ServeUsageException.class, second::lock);
        assertEquals("another crifresh-sim serve (pid " + ProcessHandle.current().pid() + ", API server http://127.0.0.1:40001) uses "
                + dir.resolve("sim").toAbsolutePath() + "; stop it first, or give this one its own directory: --kubeconfig OTHER-DIR/kubeconfig",
                e.getMessage());
        second.close(); // what serve does after a failed start: must not remove the first one's files
        assertTrue(Files.readString(dir.resolve("sim/kubeconfig")).contains("http://127.0.0.1:40001"));
        first.close();
        assertFalse(Files.exists(dir.resolve("sim")), "the first serve removes its files, its lock and its folder");
    }

    @Test
    void aServeInAnotherProcessIsNamedAndItsDeathFreesTheDirectory() throws Exception {
        Path sim = dir.resolve("sim");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ServeLockHolder.class.getName(), sim.toString(), "http://127.0.0.1:40002")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("locked", out.readLine());
            ServeUsageException e = assertThrows(ServeUsageException.class, () -> new ServeFiles(sim.resolve("kubeconfig"), null).lock());
            assertTrue(e.getMessage().startsWith("another crifresh-sim serve (pid " + holder.pid() + ", API server http://127.0.0.1:40002) uses "
                    + sim.toAbsolutePath()), e.getMessage());
            assertTrue(Files.readString(sim.resolve("kubeconfig")).contains("http://127.0.0.1:40002"), "left alone");
        } finally {
            holder.destroyForcibly(); // SIGKILL: no shutdown hook, no clean-up, as after a crash
            assertTrue(holder.waitFor(60, TimeUnit.SECONDS));
        }
        // the kernel dropped the dead process's lock: the next serve starts
        ServeFiles next = new ServeFiles(sim.resolve("kubeconfig"), null);
        next.lock();
        next.close();
    }
}
