package dev.crifresh.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

/**
 * Local stand-ins for the Dockerfiles' base images, so they build without a registry: a JRE assembled
 * from Debian's packages (debootstrap minbase + openjdk-17-jre-headless, laid out like eclipse-temurin's
 * JRE: JAVA_HOME=/opt/java/openjdk, java on PATH, cacerts a real file), and for the coordinator's
 * talosctl stage an image holding a /talosctl that says it is a stand-in. No JDK stand-in exists on
 * purpose: the images are built from the jars Maven built (JAR_SOURCE=prebuilt), and a build that
 * reached the Maven stage would fail on the missing JDK image ({@code --pull-never}).
 */
final class StandIns {

    static final String JRE = "localhost/crifresh-stand-in/jre:17-bookworm";
    static final String TALOSCTL = "localhost/crifresh-stand-in/talosctl:test";
    /** The arm64 JRE (Debian's arm64 packages unpacked without emulation) and talosctl. */
    static final String JRE_ARM64 = "localhost/crifresh-stand-in/jre:17-bookworm-arm64";
    static final String TALOSCTL_ARM64 = "localhost/crifresh-stand-in/talosctl:test-arm64";
    /**
     * A manifest list of {@link #JRE} (amd64) and {@link #JRE_ARM64}, as eclipse-temurin's tag is: a cross
     * build resolves its build-platform stages to the amd64 image and its target stages to the arm64 one.
     */
    static final String JRE_MULTI = "localhost/crifresh-stand-in/jre:17-bookworm-multiarch";
    static final String NO_JDK = "localhost/crifresh-stand-in/no-jdk:absent";
    private static final String TARBALL_LABEL = "dev.crifresh.stand-in.rootfs";
    static final Path CACHE = Path.of(System.getProperty("crifresh.images.cache", "/var/cache/crifresh-images"));

    private StandIns() {
    }

    /** The cached rootfs tarball, assembled first if missing (minutes: debootstrap). */
    static Path jreRootfs(Path repo) {
        return jreRootfs(repo, null);
    }

    /** The same for a Debian architecture ({@code arm64}); null: this machine's. */
    static Path jreRootfs(Path repo, String debianArch) {
        List<String> command = new java.util.ArrayList<>(Command.of("sh", repo.resolve("images/src/main/sh/jre-base-rootfs.sh"), CACHE));
        if (debianArch != null) {
            command.add(debianArch);
        }
        Command.Result r = Command.run(Duration.ofMinutes(20), command).check();
        List<String> lines = r.stdout().strip().lines().toList();
        return Path.of(lines.get(lines.size() - 1));
    }

    static void ensureJre(Buildah buildah, Path tarball) {
        ensureJre(buildah, tarball, JRE, null);
    }

    /** Imports the rootfs tarball as {@code name}, for {@code arch} (null: this machine's), unless it is there. */
    static void ensureJre(Buildah buildah, Path tarball, String name, String arch) {
        Command.Result existing = buildah.attempt("inspect", "--type", "image", "--format",
                "{{index .OCIv1.Config.Labels \"" + TARBALL_LABEL + "\"}}", name);
        if (existing.exit() == 0 && existing.stdout().strip().equals(tarball.getFileName().toString())) {
            return;
        }
        String container = buildah.run("from", "--pull-never", "scratch").stdout().strip();
        buildah.run("add", container, tarball, "/");
        if (arch != null) {
            buildah.run("config", "--os", "linux", "--arch", arch, container);
        }
        buildah.run("config",
                "--env", "JAVA_HOME=/opt/java/openjdk",
                "--env", "PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "--env", "LANG=C.UTF-8",
                "--label", TARBALL_LABEL + "=" + tarball.getFileName(),
                "--label", "org.opencontainers.image.description=test stand-in for eclipse-temurin's JRE: Debian bookworm's openjdk-17-jre-headless",
                container);
        buildah.run("commit", "--rm", container, name);
    }

    /** (Re)creates {@link #JRE_MULTI} from the two single-platform stand-ins. */
    static void ensureJreManifestList(Buildah buildah) {
        buildah.attempt("manifest", "rm", JRE_MULTI);
        buildah.run("manifest", "create", JRE_MULTI);
        for (String image : List.of(JRE, JRE_ARM64)) {
            buildah.run("manifest", "add", JRE_MULTI, "containers-storage:" + image);
        }
    }

    static void ensureTalosctl(Buildah buildah, Path work) {
        ensureTalosctl(buildah, work, TALOSCTL, null);
    }

    static void ensureTalosctl(Buildah buildah, Path work, String name, String arch) {
        try {
            Path script = work.resolve("talosctl");
            Files.writeString(script, "#!/bin/sh\necho 'talosctl stand-in of the images tests, not Sidero Labs talosctl' >&2\nexit 64\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
            String container = buildah.run("from", "--pull-never", "scratch").stdout().strip();
            buildah.run("copy", container, script, "/talosctl");
            if (arch != null) {
                buildah.run("config", "--os", "linux", "--arch", arch, container);
            }
            buildah.run("commit", "--rm", container, name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
