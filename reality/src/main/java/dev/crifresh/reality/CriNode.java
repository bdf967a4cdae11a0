package dev.crifresh.reality;

import dev.crifresh.sim.node.TalosConfigFiles;
import dev.crifresh.sim.node.TalosConfigFiles.Layout;
import dev.crifresh.sim.scenario.Credential;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;

/**
 * One node's root file system in a temporary directory, {@code host/}: containerd runs chrooted into it
 * ({@link RealContainerd}) and the agent reads it as its host root, so both see one tree, as on a node.
 * {@code host/etc/cri/…} holds Talos's CRI files rendered by the sim's {@link TalosConfigFiles} in the
 * {@link Layout} Talos gives the containerd that runs (version 2 for 1.x, version 3 for 2.x);
 * {@code host/var/lib/containerd} and {@code host/run/containerd} are containerd's
 * root and state. Files are written as Talos writes them: in place (truncate and write, never a rename),
 * {@code 01-registries.part} mode 0600, and a file whose content is already identical is not written at all.
 */
public final class CriNode {
    /** The CRI settings Talos leaves at their defaults, set so containerd needs no overlay mounts or CNI. */
    private final TalosConfigFiles.CriSettings settings;
    private final Path root;
    private final Layout layout;

    /** A node in Talos ≤ 1.8's layout (config version 2, containerd 1.x). */
    public CriNode(Path root) {
        this(root, Layout.TALOS_1_8);
    }

    public CriNode(Path root, Layout layout) {
        this.root = root;
        this.layout = layout;
        // Talos's CNI directories (absent here: the CRI plugin reports no network, pulls work); the native
        // snapshotter, so unpacking needs no overlay mounts.
        this.settings = new TalosConfigFiles.CriSettings("native", TalosConfigFiles.CriSettings.TALOS.cniBinDir(),
                TalosConfigFiles.CriSettings.TALOS.cniConfDir());
        // The CNI directories exist on a node (Talos ships them); where they do not, containerd's CRI plugin
        // creates /etc/cni/net.d when it starts, which moves the stamps of /etc, an ancestor of the config.
        for (String d : List.of("host/etc/cri/conf.d", "host/etc/cni/net.d", "host/opt/cni/bin",
                "host/var/lib/containerd", "host/run/containerd", "host/tmp", "host/usr", "host/proc", "host/dev",
                "host/sys")) {
            try {
                Files.createDirectories(root.resolve(d));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + root.resolve(d), e);
            }
        }
    }

    /** The node's temporary directory; {@link #hostRoot()} is inside it, scratch space beside it. */
    public Path root() {
        return root;
    }

    /** The node's root file system as the agent reads it ({@code --host-root}). */
    public Path hostRoot() {
        return root.resolve("host");
    }

    /** A node path such as {@code /etc/cri/conf.d/cri.toml} inside {@link #hostRoot()}. */
    public Path path(String nodePath) {
        return hostRoot().resolve(nodePath.substring(1));
    }

    /** containerd's CRI socket as seen from outside its mount namespace. */
    public Path socket() {
        return hostRoot().resolve("run/containerd/containerd.sock");
    }

    /**
     * Renders every CRI file for {@code registry} and {@code credential} as Talos does: {@code containerd.toml},
     * {@code 00-base.part}, {@code 01-registries.part}, the merged {@code cri.toml} and the base runtime spec.
     *
     * @return the node paths actually written (identical files are skipped)
     */
    public List<String> render(String registry, Credential credential) {
        List<String> written = new java.util.ArrayList<>();
        for (TalosConfigFiles.File file : layout.files(registry, credential, settings)) {
            if (write(file.path(), file.text(), file.secret())) {
                written.add(file.path());
            }
        }
        // containerd reads base_runtime_spec when the CRI plugin starts; Talos writes the real one.
        write(TalosConfigFiles.BASE_RUNTIME_SPEC, "{\"ociVersion\":\"1.0.2-dev\"}\n", false);
        return written;
    }

    /** The layout Talos renders for this node's containerd. */
    public Layout layout() {
        return layout;
    }

    /** The root config's text ({@code containerd.toml}) of this node's layout. */
    public String containerdToml() {
        return layout.containerdToml();
    }

    /** The merged file's text for {@code credential}: what a rotation writes into {@code cri.toml}. */
    public String criToml(String registry, Credential credential) {
        return layout.criToml(registry, credential, settings);
    }

    /** The registries part's text for {@code credential} (Talos ≥ 1.14 does not write it to disk). */
    public String registriesPart(String registry, Credential credential) {
        return layout.registriesPart(registry, credential);
    }

    /** Writes {@code text} to {@code nodePath} in place; false (and no write) when the file already holds it. */
    public boolean write(String nodePath, String text, boolean secret) {
        Path file = path(nodePath);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        try {
            Files.createDirectories(file.getParent());
            if (Files.exists(file) && Arrays.equals(Files.readAllBytes(file), bytes)) {
                return false;
            }
            if (secret && !Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** The watch set of a Talos node, as the agent's {@code --watch} default names it. */
    public static List<String> watchGlobs() {
        return List.of(TalosConfigFiles.CONTAINERD_TOML, TalosConfigFiles.CRI_TOML, "/etc/cri/conf.d/*.part");
    }
}
