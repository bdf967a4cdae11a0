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
    static final String NO_JDK = "localhost/crifresh-stand-in/no-jdk:absent";
    private static final String TARBALL_LABEL = "dev.crifresh.stand-in.rootfs";
    static final Path CACHE = Path.of(System.getProperty("crifresh.images.cache", "/var/cache/crifresh-images"));

    private StandIns() {
    }

    /** The cached rootfs tarball, assembled first if missing (minutes: debootstrap). */
    static Path jreRootfs(Path repo) {
        Command.Result r = Command.run(Duration.ofMinutes(20),
                Command.of("sh", repo.resolve("images/src/main/sh/jre-base-rootfs.sh"), CACHE)).check();
        List<String> lines = r.stdout().strip().lines().toList();
        return Path.of(lines.get(lines.size() - 1));
    }

    static void ensureJre(Buildah buildah, Path tarball) {
        Command.Result existing = buildah.attempt("inspect", "--type", "image", "--format",
                "{{index .OCIv1.Config.Labels \"" + TARBALL_LABEL + "\"}}", JRE);
        if (existing.exit() == 0 && existing.stdout().strip().equals(tarball.getFileName().toString())) {
            return;
        }
        String container = buildah.run("from", "--pull-never", "scratch").stdout().strip();
        buildah.run("add", container, tarball, "/");
        buildah.run("config",
                "--env", "JAVA_HOME=/opt/java/openjdk",
                "--env", "PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "--env", "LANG=C.UTF-8",
                "--label", TARBALL_LABEL + "=" + tarball.getFileName(),
                "--label", "org.opencontainers.image.description=test stand-in for eclipse-temurin's JRE: Debian bookworm's openjdk-17-jre-headless",
                container);
        buildah.run("commit", "--rm", container, JRE);
    }

    static void ensureTalosctl(Buildah buildah, Path work) {
        try {
            Path script = work.resolve("talosctl");
            Files.writeString(script, "#!/bin/sh\necho 'talosctl stand-in of the images tests, not Sidero Labs talosctl' >&2\nexit 64\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
            String container = buildah.run("from", "--pull-never", "scratch").stdout().strip();
            buildah.run("copy", container, script, "/talosctl");
            buildah.run("commit", "--rm", container, TALOSCTL);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
