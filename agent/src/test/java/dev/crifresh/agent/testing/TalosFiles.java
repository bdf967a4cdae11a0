package dev.crifresh.agent.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

/** Talos' CRI config files under a host root: containerd.toml, the merged conf.d/cri.toml and the .part. */
public final class TalosFiles {
    public static final String CONTAINERD_TOML = "/etc/cri/containerd.toml";
    public static final String CRI_TOML = "/etc/cri/conf.d/cri.toml";
    public static final String REGISTRIES_PART = "/etc/cri/conf.d/01-registries.part";

    private final Path hostRoot;

    public TalosFiles(Path hostRoot) {
        this.hostRoot = hostRoot;
    }

    public Path hostRoot() {
        return hostRoot;
    }

    public Path onHost(String nodePath) {
        return hostRoot.resolve(nodePath.substring(1));
    }

    /** Writes all three files with {@code password} for ghcr.io, all with mtime {@code at}. */
    public TalosFiles writeAll(String password, Instant at) throws IOException {
        write(CONTAINERD_TOML, containerdToml(), at);
        write(REGISTRIES_PART, registriesPart(password), at);
        write(CRI_TOML, criToml(password), at);
        return this;
    }

    /** Talos' in-place write (truncate + write, no rename), then the mtime set to {@code at} when given. */
    public void write(String nodePath, String content, Instant at) throws IOException {
        Path file = onHost(nodePath);
        Files.createDirectories(file.getParent());
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        if (at != null) {
            Files.setLastModifiedTime(file, FileTime.from(at));
        }
    }

    /** Changes the credential the way a machine-config patch does: the .part, then the merged cri.toml. */
    public void rotate(String password) throws IOException {
        write(REGISTRIES_PART, registriesPart(password), null);
        write(CRI_TOML, criToml(password), null);
    }

    public static String containerdToml() {
        return """
                version = 3
                imports = ["/etc/cri/conf.d/cri.toml"]

                [debug]
                level = "info"
                """;
    }

    public static String registriesPart(String password) {
        return """
                [plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]
                username = 'deploy-bot'
                password = '%s'
                """.formatted(password);
    }

    public static String criToml(String password) {
        return """
                ## /etc/cri/conf.d/01-registries.part (sha256:ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12)

                version = 3

                [plugins.'io.containerd.cri.v1.images'.registry.configs.'ghcr.io'.auth]
                username = 'deploy-bot'
                password = '%s'
                """.formatted(password);
    }
}
