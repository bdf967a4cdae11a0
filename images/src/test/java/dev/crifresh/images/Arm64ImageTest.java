package dev.crifresh.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Both Dockerfiles cross-built for linux/arm64 on this amd64 machine with buildah ({@code --platform
 * linux/arm64}), as release.yml builds the arm64 half of its images with no QEMU step: from arm64 stand-in bases
 * (Debian's arm64 JRE, unpacked without running it) and a manifest list that gives the build-platform stages
 * ({@code FROM --platform=$BUILDPLATFORM}: the agent's keytool) the amd64 JRE. Checks the images' platform in
 * their OCI config and that the JRE inside is an aarch64 ELF, so the Raspberry Pi nodes the RTC-less support is
 * for get an image they can run.
 *
 * <p>Threat model: neither side — packaging. It guards the release against an image that cannot run on arm64
 * nodes, which would leave them unattested (and so rebooted on every rollout).
 */
class Arm64ImageTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** ELF e_machine values (elf.h). */
    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;

    private static BuiltImages images;
    private static ImageFiles agent;
    private static ImageFiles coordinator;

    @BeforeAll
    static void build() {
        images = BuiltImages.get().withArm64();
        List<String> handlers = images.arm64BuildHandlers();
        if (handlers.isEmpty()) {
            System.out.println("images: no aarch64 binfmt_misc handler registered: the arm64 builds ran no arm64 program");
        } else {
            System.out.println("images: aarch64 binfmt_misc handlers " + handlers + " are registered on this machine:"
                    + " the arm64 builds succeeding does not prove they ran no arm64 program (the Dockerfile rule does, DockerfileTest)");
        }
        agent = ImageFiles.mount(images.buildah, BuiltImages.AGENT_ARM64);
        coordinator = ImageFiles.mount(images.buildah, BuiltImages.COORDINATOR_ARM64);
    }

    @AfterAll
    static void unmount() {
        for (ImageFiles files : new ImageFiles[] {agent, coordinator}) {
            if (files != null) {
                files.close();
            }
        }
    }

    @Test
    void bothImagesAreLinuxArm64InTheirOciConfig() {
        for (String image : List.of(BuiltImages.AGENT_ARM64, BuiltImages.COORDINATOR_ARM64)) {
            JsonNode oci = inspect(image).path("OCIv1");
            assertEquals("arm64", oci.path("architecture").asString(), image);
            assertEquals("linux", oci.path("os").asString(), image);
        }
        for (String image : List.of(BuiltImages.AGENT, BuiltImages.COORDINATOR)) {
            assertEquals("amd64", inspect(image).path("OCIv1").path("architecture").asString(), image);
        }
    }

    /** The same image config as the amd64 build: entrypoint, user, labels; the base named is the multi-arch tag. */
    @Test
    void theArm64ImagesConfigIsTheAmd64Ones() {
        for (String[] pair : List.of(new String[] {BuiltImages.AGENT, BuiltImages.AGENT_ARM64},
                new String[] {BuiltImages.COORDINATOR, BuiltImages.COORDINATOR_ARM64})) {
            JsonNode amd64 = inspect(pair[0]).path("OCIv1").path("config");
            JsonNode arm64 = inspect(pair[1]).path("OCIv1").path("config");
            for (String field : List.of("User", "Entrypoint", "Cmd", "ExposedPorts", "Env")) {
                assertEquals(amd64.path(field), arm64.path(field), pair[1] + " " + field);
            }
            assertEquals(StandIns.JRE_MULTI, arm64.path("Labels").path("org.opencontainers.image.base.name").asString());
        }
    }

    @Test
    void theJreInBothImagesIsAnAarch64Elf() throws Exception {
        for (ImageFiles files : List.of(agent, coordinator)) {
            Path java = javaHome(files).resolve("bin/java");
            assertEquals(EM_AARCH64, elfMachine(java), java + " is not an aarch64 ELF");
            assertEquals(EM_AARCH64, elfMachine(javaHome(files).resolve("lib/server/libjvm.so")));
        }
        ImageFiles amd64 = ImageFiles.mount(images.buildah, BuiltImages.AGENT);
        try {
            assertEquals(EM_X86_64, elfMachine(javaHome(amd64).resolve("bin/java")), "the reading tells the platforms apart");
        } finally {
            amd64.close();
        }
    }

    /** What the build platform's stages made: the same jars, and the agent's empty PKCS12 trust store. */
    @Test
    void theArm64ImagesHoldTheSameJarsAndTheEmptyTrustStore() throws Exception {
        assertEquals(-1, Files.mismatch(BuiltImages.REPO.resolve("agent/target/crifresh-agent.jar"),
                agent.root.resolve("opt/crifresh/crifresh-agent.jar")));
        assertEquals(-1, Files.mismatch(BuiltImages.REPO.resolve("coordinator/target/crifresh-coordinator.jar"),
                coordinator.root.resolve("opt/crifresh/crifresh-coordinator.jar")));
        Path store = javaHome(agent).resolve("lib/security/cacerts");
        assertTrue(Files.isRegularFile(store, LinkOption.NOFOLLOW_LINKS));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            trust.load(in, "changeit".toCharArray());
        }
        assertEquals(0, trust.size(), "keytool ran on the build platform and its store is in the arm64 image");
        assertTrue(Files.isExecutable(coordinator.root.resolve("usr/local/bin/talosctl")));
    }

    private static Path javaHome(ImageFiles files) throws Exception {
        String target = Files.readSymbolicLink(files.root.resolve("opt/java/openjdk")).toString();
        return files.root.resolve(target.startsWith("/") ? target.substring(1) : target);
    }

    /** e_machine of an ELF64 little-endian file: bytes 18-19 of the header (after e_ident and e_type). */
    static int elfMachine(Path file) throws Exception {
        byte[] header = new byte[20];
        try (InputStream in = Files.newInputStream(file)) {
            assertEquals(20, in.readNBytes(header, 0, 20), file + ": shorter than an ELF header");
        }
        assertTrue(header[0] == 0x7f && header[1] == 'E' && header[2] == 'L' && header[3] == 'F', file + ": not an ELF file");
        assertEquals(2, header[4], file + ": not ELFCLASS64");
        assertEquals(1, header[5], file + ": not little-endian");
        return Short.toUnsignedInt(ByteBuffer.wrap(header, 18, 2).order(ByteOrder.LITTLE_ENDIAN).getShort());
    }

    private static JsonNode inspect(String image) {
        return JSON.readTree(images.buildah.run("inspect", "--type", "image", image).stdout());
    }
}
