package dev.crifresh.reality;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What the reality harness needs from the machine: root, private mount namespaces with bind and proc
 * mounts, and the Debian programs it starts. {@link #missing()} names the first thing that is missing, in
 * one line, so a suite that cannot run says exactly why.
 */
public final class Prerequisites {
    public static final String CONTAINERD = "/usr/bin/containerd";
    public static final String REGISTRY = "/usr/bin/docker-registry";
    static final List<String> PROGRAMS = List.of(CONTAINERD, REGISTRY, "runc", "skopeo", "htpasswd", "unshare", "nsenter", "chroot", "mount");

    private static volatile Optional<String> cached;

    private Prerequisites() {
    }

    /** Empty when the harness can run here; otherwise why not (one line). Checked once per JVM. */
    public static synchronized Optional<String> missing() {
        if (cached == null) {
            cached = check();
        }
        return cached;
    }

    private static Optional<String> check() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return Optional.of("not Linux");
        }
        String uid = Commands.run(List.of("id", "-u")).output().strip();
        if (!"0".equals(uid)) {
            return Optional.of("not root (uid " + uid + "): containerd and mount namespaces need root");
        }
        for (String program : PROGRAMS) {
            if (!onPath(program)) {
                return Optional.of(program + " is not installed (Debian: containerd, runc, docker-registry, skopeo,"
                        + " apache2-utils, util-linux, mount)");
            }
        }
        try {
            Path dir = Files.createTempDirectory("crifresh-ns-probe");
            try {
                Commands.Result probe = Commands.run(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                        "mount --bind -o ro /usr " + dir + " && mount -t proc proc " + dir));
                if (!probe.ok()) {
                    return Optional.of("no private mount namespace with bind and proc mounts here: "
                            + probe.output().strip().replace('\n', ' '));
                }
            } finally {
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            return Optional.of("cannot create a temporary directory: " + e.getMessage());
        }
        return Optional.empty();
    }

    static boolean onPath(String program) {
        if (program.startsWith("/")) {
            return Files.isExecutable(Path.of(program));
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", program)) || Files.isExecutable(Path.of("/sbin", program));
    }

    /** Reads a whole small file, or null. */
    static String readOrNull(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return null;
        }
    }
}
