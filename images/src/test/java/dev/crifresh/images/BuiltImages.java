package dev.crifresh.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Both images, built once per test JVM with buildah from the stand-in bases and the jars the reactor's
 * package phase built, exactly as docs/install.md tells a user without Docker to build them. Prints
 * what each step cost.
 */
final class BuiltImages {

    static final Path MODULE = Path.of("").toAbsolutePath();
    static final Path REPO = MODULE.getParent();
    static final String AGENT = "localhost/crifresh-agent:test";
    static final String COORDINATOR = "localhost/crifresh-coordinator:test";
    static final String VERSION = "0.1.0-test";
    static final String REVISION = "images-test";

    private static BuiltImages instance;

    final Buildah buildah;
    final Path baseTarball;
    final Map<String, Long> millis = new LinkedHashMap<>();

    private BuiltImages(Buildah buildah, Path baseTarball) {
        this.buildah = buildah;
        this.baseTarball = baseTarball;
    }

    static synchronized BuiltImages get() {
        if (instance == null) {
            Tools.require("buildah", "debootstrap");
            Tools.requireRoot("buildah's chroot isolation and debootstrap");
            Path root = MODULE.resolve("target/buildah");
            try {
                Files.createDirectories(root);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            long t0 = System.nanoTime();
            Path tarball = StandIns.jreRootfs(REPO);
            BuiltImages images = new BuiltImages(new Buildah(root), tarball);
            images.took("jre stand-in rootfs (debootstrap, or the cache)", t0);
            long t1 = System.nanoTime();
            StandIns.ensureJre(images.buildah, tarball);
            StandIns.ensureTalosctl(images.buildah, root);
            images.took("stand-in images imported", t1);
            images.build("agent", AGENT);
            images.build("coordinator", COORDINATOR);
            images.millis.forEach((step, ms) -> System.out.printf("images: %-50s %6d ms%n", step, ms));
            instance = images;
        }
        return instance;
    }

    private void build(String module, String tag) {
        Path jar = REPO.resolve(module).resolve("target/crifresh-" + module + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError(jar + " is missing: the " + module + " module's package phase builds it"
                    + " (./mvnw -pl images -am verify)");
        }
        long t0 = System.nanoTime();
        buildah.run(buildCommand(module, tag).toArray());
        took("buildah bud Dockerfile." + module, t0);
    }

    /** The buildah arguments docs/install.md shows, with the stand-ins as bases. */
    static java.util.List<Object> buildCommand(String module, String tag) {
        return java.util.List.of("bud", "--isolation", "chroot", "--pull-never",
                "-f", REPO.resolve("Dockerfile." + module),
                "--build-arg", "JAR_SOURCE=prebuilt",
                "--build-arg", "JRE_IMAGE=" + StandIns.JRE,
                "--build-arg", "JDK_IMAGE=" + StandIns.NO_JDK,
                "--build-arg", "TALOSCTL_IMAGE=" + StandIns.TALOSCTL,
                "--build-arg", "VERSION=" + VERSION,
                "--build-arg", "REVISION=" + REVISION,
                "-t", tag, REPO.resolve(module).resolve("target"));
    }

    void took(String step, long startNanos) {
        millis.put(step, (System.nanoTime() - startNanos) / 1_000_000);
    }
}
