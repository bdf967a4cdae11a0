package dev.crifresh.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
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
    static final String AGENT_ARM64 = "localhost/crifresh-agent:test-arm64";
    static final String COORDINATOR_ARM64 = "localhost/crifresh-coordinator:test-arm64";
    /**
     * This machine's platform, given to the build as BUILDPLATFORM (and TARGETPLATFORM, the target's): buildah 1.28
     * (Debian 12) predefines neither, and {@code FROM --platform=$BUILDPLATFORM} would resolve to the target's
     * platform (emulation).
     */
    static final String BUILD_PLATFORM = "linux/" + switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> "amd64";
        case "aarch64", "arm64" -> "arm64";
        default -> System.getProperty("os.arch");
    };
    static final String VERSION = "0.1.0-test";
    static final String REVISION = "images-test";

    private static BuiltImages instance;
    private boolean arm64Built;
    private List<String> arm64BuildHandlers = List.of();

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

    /**
     * Both images cross-built for linux/arm64 on this (amd64) machine, as release.yml builds them: from the arm64
     * stand-ins (Debian's arm64 JRE unpacked without emulation) and the manifest list that gives the Dockerfiles'
     * build-platform stages the amd64 JRE. A RUN on arm64 would fail here ("exec format error") unless an
     * aarch64 binfmt_misc handler is registered, so a build that succeeds ran no arm64 program.
     */
    synchronized BuiltImages withArm64() {
        if (arm64Built) {
            return this;
        }
        if (!BUILD_PLATFORM.equals("linux/amd64")) {
            throw new AssertionError("the arm64 cross-build needs an amd64 build machine; this is " + BUILD_PLATFORM);
        }
        arm64BuildHandlers = QemuAarch64.handlers();
        long t0 = System.nanoTime();
        Path tarball = StandIns.jreRootfs(REPO, "arm64");
        took("arm64 jre stand-in rootfs (debootstrap --foreign, or the cache)", t0);
        long t1 = System.nanoTime();
        StandIns.ensureJre(buildah, tarball, StandIns.JRE_ARM64, "arm64");
        StandIns.ensureJreManifestList(buildah);
        StandIns.ensureTalosctl(buildah, buildah.root(), StandIns.TALOSCTL_ARM64, "arm64");
        took("arm64 stand-in images imported", t1);
        for (String module : java.util.List.of("agent", "coordinator")) {
            long t2 = System.nanoTime();
            buildah.run(buildCommand(module, module.equals("agent") ? AGENT_ARM64 : COORDINATOR_ARM64, "linux/arm64").toArray());
            took("buildah bud --platform linux/arm64 Dockerfile." + module, t2);
        }
        millis.forEach((step, ms) -> { if (step.contains("arm64")) { System.out.printf("images: %-62s %6d ms%n", step, ms); } });
        arm64Built = true;
        return this;
    }

    /** The aarch64 binfmt_misc handlers registered when the arm64 images were built (none: no emulation possible). */
    synchronized List<String> arm64BuildHandlers() {
        return arm64BuildHandlers;
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
        return buildCommand(module, tag, null);
    }

    /** The same for {@code platform} (null: this machine's, no --platform). */
    static java.util.List<Object> buildCommand(String module, String tag, String platform) {
        boolean arm64 = "linux/arm64".equals(platform);
        java.util.List<Object> out = new java.util.ArrayList<>(java.util.List.of("bud", "--isolation", "chroot", "--pull-never"));
        if (platform != null) {
            out.addAll(java.util.List.of("--platform", platform));
        }
        out.addAll(java.util.List.of("--build-arg", "BUILDPLATFORM=" + BUILD_PLATFORM,
                "--build-arg", "TARGETPLATFORM=" + (platform == null ? BUILD_PLATFORM : platform),
                "-f", REPO.resolve("Dockerfile." + module),
                "--build-arg", "JAR_SOURCE=prebuilt",
                "--build-arg", "JRE_IMAGE=" + (arm64 ? StandIns.JRE_MULTI : StandIns.JRE),
                "--build-arg", "JDK_IMAGE=" + StandIns.NO_JDK,
                "--build-arg", "TALOSCTL_IMAGE=" + (arm64 ? StandIns.TALOSCTL_ARM64 : StandIns.TALOSCTL),
                "--build-arg", "VERSION=" + VERSION,
                "--build-arg", "REVISION=" + REVISION,
                "-t", tag, REPO.resolve(module).resolve("target")));
        return out;
    }

    void took(String step, long startNanos) {
        millis.put(step, (System.nanoTime() - startNanos) / 1_000_000);
    }
}
