package dev.crifresh.reality;

import dev.crifresh.sim.node.TalosConfigFiles.Layout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One containerd generation the suites start: Debian 12's own 1.6 ({@code /usr/bin/containerd}), and trixie's
 * 1.7, sid's 2.1 and containerd's own 2.2 and 2.3 archives unpacked by {@code reality/bin/fetch-containerd} into
 * its cache ({@code <cache>/<version>/usr/bin/containerd}; the cache is {@code -Dcrifresh.containerd.cache},
 * {@code $CRIFRESH_CONTAINERD_CACHE} or {@code ~/.cache/crifresh/containerd}, as the script's). A generation's
 * binary can also be named directly with {@code -Dcrifresh.containerd.<name>=<path>}. Each starts with the
 * config layout Talos gives that containerd ({@link #layout()}): 2.2 the Talos 1.9–1.13 layout (Talos 1.12.8+ and
 * 1.13 ship it), 2.3 Talos 1.14's (no {@code 01-registries.part} on disk); {@link #withLayout} gives another, such
 * as Talos 1.15's version 4 on 2.3.
 *
 * @param name    the generation as the suites name it: {@code 1.6}, {@code 1.7}, {@code 2.1}, {@code 2.2}, {@code 2.3}
 * @param binary  its {@code containerd}; its directory also holds the shims it starts (first on its PATH)
 * @param layout  the files Talos renders for that containerd
 * @param missing empty when the binary is there; otherwise what is missing, in one line
 */
public record ContainerdGeneration(String name, Path binary, Layout layout, Optional<String> missing) {
    /** Every generation the suites run, in order, whether it can be had here or not. */
    public static List<ContainerdGeneration> all() {
        return List.of(
                system("1.6", Path.of(Prerequisites.CONTAINERD), Layout.TALOS_1_8),
                cached("1.7", Layout.TALOS_1_8),
                cached("2.1", Layout.TALOS_1_13),
                cached("2.2", Layout.TALOS_1_13),
                cached("2.3", Layout.TALOS_1_14));
    }

    public static ContainerdGeneration named(String name) {
        return all().stream().filter(g -> g.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no containerd generation " + name));
    }

    /** True for containerd 2.x: its CRI status carries no registry section (the runtime-status proof is silent). */
    public boolean two() {
        return name.startsWith("2.");
    }

    /** The directory of its binaries: first on containerd's PATH, so it starts its own shims. */
    public Path binDir() {
        return binary.getParent();
    }

    /** Debian's own containerd: the system's binary and shims, nothing to mount. */
    public boolean system() {
        return binary.equals(Path.of(Prerequisites.CONTAINERD));
    }

    @Override
    public String toString() {
        return "containerd " + name;
    }

    private static ContainerdGeneration system(String name, Path binary, Layout layout) {
        Path override = overrideOf(name);
        Path chosen = override != null ? override : binary;
        return new ContainerdGeneration(name, chosen, layout, Files.isExecutable(chosen) ? Optional.empty()
                : Optional.of("containerd " + name + ": " + chosen + " is not installed (Debian: containerd)"));
    }

    private static ContainerdGeneration cached(String name, Layout layout) {
        Path override = overrideOf(name);
        if (override != null) {
            return new ContainerdGeneration(name, override, layout, Files.isExecutable(override) ? Optional.empty()
                    : Optional.of("containerd " + name + ": -Dcrifresh.containerd." + name + "=" + override
                            + " is not an executable"));
        }
        Path cache = cache();
        List<Path> found = new ArrayList<>();
        try (Stream<Path> versions = Files.isDirectory(cache) ? Files.list(cache) : Stream.empty()) {
            versions.filter(v -> v.getFileName().toString().startsWith(name + "."))
                    .map(v -> v.resolve("usr/bin/containerd")).filter(Files::isExecutable).forEach(found::add);
        } catch (IOException e) {
            return new ContainerdGeneration(name, cache.resolve(name), layout,
                    Optional.of("containerd " + name + ": cannot list " + cache + ": " + e.getMessage()));
        }
        return found.stream().max(Comparator.comparing(Path::toString))
                .map(b -> new ContainerdGeneration(name, b, layout, Optional.empty()))
                .orElseGet(() -> new ContainerdGeneration(name, cache.resolve(name + ".x/usr/bin/containerd"), layout,
                        Optional.of("containerd " + name + " is not in " + cache + " (run reality/bin/fetch-containerd)")));
    }

    private static Path overrideOf(String name) {
        String value = System.getProperty("crifresh.containerd." + name);
        return value == null || value.isBlank() ? null : Path.of(value);
    }

    /** fetch-containerd's cache: the same default and the same environment variable. */
    static Path cache() {
        String property = System.getProperty("crifresh.containerd.cache");
        if (property != null && !property.isBlank()) {
            return Path.of(property);
        }
        String env = System.getenv("CRIFRESH_CONTAINERD_CACHE");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "crifresh", "containerd");
    }
}
