package dev.crifresh.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/** An image's root filesystem mounted read-only through a buildah working container. */
final class ImageFiles implements AutoCloseable {

    /** One entry of a file tree: what differs when a layer changes it (mtime aside). */
    record Entry(String type, long size, String mode, int uid, int gid, String link) {
    }

    private final Buildah buildah;
    private final String container;
    final Path root;

    private ImageFiles(Buildah buildah, String container, Path root) {
        this.buildah = buildah;
        this.container = container;
        this.root = root;
    }

    static ImageFiles mount(Buildah buildah, String image) {
        String container = buildah.run("from", "--pull-never", image).stdout().strip();
        Path root = Path.of(buildah.run("mount", container).stdout().strip());
        return new ImageFiles(buildah, container, root);
    }

    /** Every path below the root (relative, no leading slash) with its type, size, mode, owner. */
    Map<String, Entry> tree() {
        Map<String, Entry> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> !p.equals(root)).forEach(p -> out.put(root.relativize(p).toString(), entry(p)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The paths whose entry differs (added, changed or removed) between base and this. */
    static Map<String, String> diff(Map<String, Entry> base, Map<String, Entry> image, Function<String, Boolean> sameContent) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, Entry> e : image.entrySet()) {
            Entry before = base.get(e.getKey());
            if (before == null) {
                out.put(e.getKey(), "added " + e.getValue());
            } else if (!before.equals(e.getValue()) || !sameContent.apply(e.getKey())) {
                out.put(e.getKey(), "changed " + before + " -> " + e.getValue());
            }
        }
        base.keySet().stream().filter(k -> !image.containsKey(k)).forEach(k -> out.put(k, "removed"));
        return out;
    }

    private static Entry entry(Path p) {
        try {
            PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            String type = a.isSymbolicLink() ? "link" : a.isDirectory() ? "dir" : a.isRegularFile() ? "file" : "other";
            int uid = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int gid = (Integer) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS);
            return new Entry(type, a.isRegularFile() ? a.size() : 0, PosixFilePermissions.toString(a.permissions()),
                    uid, gid, a.isSymbolicLink() ? Files.readSymbolicLink(p).toString() : "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        buildah.attempt("umount", container);
        buildah.attempt("rm", container);
    }
}
