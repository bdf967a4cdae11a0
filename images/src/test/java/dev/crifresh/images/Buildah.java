package dev.crifresh.images;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * buildah with a private store: vfs (no overlay mounts needed, works inside any container or VM), its
 * own root and runroot under the module's target directory, never the machine's /var/lib/containers.
 */
final class Buildah {

    static final Duration TIMEOUT = Duration.ofMinutes(10);

    private final Path root;

    Buildah(Path root) {
        this.root = root;
    }

    Command.Result run(Object... args) {
        return Command.run(TIMEOUT, command(args)).check();
    }

    Command.Result attempt(Object... args) {
        return Command.run(TIMEOUT, command(args));
    }

    List<String> command(Object... args) {
        return Command.of("buildah", "--root", root.resolve("storage"), "--runroot", root.resolve("run"),
                "--storage-driver", "vfs", List.of(args));
    }

    Path root() {
        return root;
    }
}
