package dev.crifresh.images;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's qemu-aarch64-static (qemu-user-static, unpacked into the images cache, not installed) registered with
 * the kernel's binfmt_misc for the length of one test, so the arm64 agent image runs on this amd64 machine, and
 * removed afterwards. The registration carries flag F (the kernel opens the interpreter at once), so it works in
 * containers whose root does not hold qemu.
 *
 * <p>binfmt_misc is mounted in a private mount namespace, held by a process for the registration's lifetime: the
 * machine's mounts are not touched, and on kernels where the registrations live with the mount (6.7 and later) it
 * also ends with that process. A handler for aarch64 that the machine already has is used as it is.
 *
 * <p>Where the kernel offers no binfmt_misc to root (an unprivileged container), the run cannot happen: the test
 * says so in one line and is skipped, also under CI=true. Every other obstacle (qemu cannot be fetched) fails the
 * test under CI=true.
 */
final class QemuAarch64 implements AutoCloseable {

    static final String NAME = "crifresh-aarch64";
    // qemu's own binfmt rule for aarch64 ELF executables (scripts/qemu-binfmt-conf.sh)
    private static final String MAGIC = "\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00";
    private static final String MASK = "\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff";

    private final Process holder;
    final String description;

    private QemuAarch64(Process holder, String description) {
        this.holder = holder;
        this.description = description;
    }

    /** Registers qemu-aarch64 (or finds the machine's handler); aborts the test where this machine cannot. */
    static QemuAarch64 registerOrSkip(Path repo) {
        List<String> existing = handlers();
        if (!existing.isEmpty()) {
            return new QemuAarch64(null, "the machine's binfmt_misc handler " + existing);
        }
        Command.Result fetched = Command.run(Duration.ofMinutes(10),
                Command.of("sh", repo.resolve("images/src/main/sh/qemu-aarch64.sh"), StandIns.CACHE));
        if (fetched.exit() != 0) {
            skip("cannot fetch Debian's qemu-user-static: " + fetched.stderr().strip(), false);
        }
        List<String> lines = fetched.stdout().strip().lines().toList();
        String qemu = lines.get(lines.size() - 1);
        String rule = ":" + NAME + ":M::" + MAGIC + ":" + MASK + ":" + qemu + ":F";
        try {
            Process holder = new ProcessBuilder("unshare", "--mount", "sh", "-c",
                    "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || exit 3; "
                            + "printf '%s' \"$1\" > /proc/sys/fs/binfmt_misc/register || exit 4; echo registered; exec sleep 3600",
                    "sh", rule).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String first = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(30, TimeUnit.SECONDS);
            if (!"registered".equals(first)) {
                holder.waitFor(10, TimeUnit.SECONDS);
                int exit = holder.isAlive() ? -1 : holder.exitValue();
                holder.destroyForcibly();
                skip((exit == 3 ? "binfmt_misc cannot be mounted here: " : "binfmt_misc refused the registration: ") + first,
                        exit == 3 || exit == 4);
            }
            return new QemuAarch64(holder, qemu + " (registered as " + NAME + " for this run)");
        } catch (Exception e) {
            throw new AssertionError("registering qemu-aarch64 with binfmt_misc: " + e, e);
        }
    }

    /** The kernel's enabled binfmt_misc handlers for aarch64 ELF files, read in a private mount namespace. */
    static List<String> handlers() {
        Command.Result r = Command.run(Duration.ofSeconds(30), Command.of("unshare", "--mount", "sh", "-c",
                "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || exit 0;"
                        + " cd /proc/sys/fs/binfmt_misc && for f in *; do"
                        + " grep -qs 'magic 7f454c460201010000000000000000000200b700' \"$f\" && grep -qx enabled \"$f\" && echo \"$f\";"
                        + " done; true"));
        return r.stdout().lines().filter(l -> !l.isBlank()).toList();
    }

    private static void skip(String why, boolean machineCannot) {
        String line = "images: the arm64 agent image's observe does not run here: " + why;
        if (!machineCannot && "true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail(line);
        }
        System.out.println(line);
        Assumptions.abort(line);
    }

    @Override
    public void close() {
        if (holder == null) {
            return;
        }
        // the registration is the kernel's, not the holder's mount's, on kernels before 6.7: remove it explicitly
        Command.run(Duration.ofSeconds(30), Command.of("nsenter", "--target", holder.pid(), "--mount", "sh", "-c",
                "echo -1 > /proc/sys/fs/binfmt_misc/" + NAME));
        holder.destroy();
        try {
            holder.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
