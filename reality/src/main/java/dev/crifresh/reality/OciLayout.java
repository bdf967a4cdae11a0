package dev.crifresh.reality;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A one-layer OCI image layout written by Java (image-spec: {@code oci-layout}, {@code index.json},
 * {@code blobs/sha256/…}): an uncompressed tar layer holding one small file, the image config and the
 * manifest. {@code skopeo copy oci:<dir>:<tag>} reads it.
 */
public final class OciLayout {
    private final Path dir;
    private final String tag;
    private final String manifestDigest;

    private OciLayout(Path dir, String tag, String manifestDigest) {
        this.dir = dir;
        this.tag = tag;
        this.manifestDigest = manifestDigest;
    }

    /** Writes the layout into {@code dir}; {@code content} becomes the layer's {@code /crifresh.txt}. */
    public static OciLayout write(Path dir, String tag, String content) {
        try {
            Files.createDirectories(dir.resolve("blobs/sha256"));
            byte[] layer = tar("crifresh.txt", content.getBytes(StandardCharsets.UTF_8));
            String layerDigest = blob(dir, layer);
            byte[] config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Cmd\":[\"/crifresh.txt\"]},"
                    + "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:" + layerDigest + "\"]}}")
                    .getBytes(StandardCharsets.UTF_8);
            String configDigest = blob(dir, config);
            byte[] manifest = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                    + "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:"
                    + configDigest + "\",\"size\":" + config.length + "},"
                    + "\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"sha256:"
                    + layerDigest + "\",\"size\":" + layer.length + "}]}").getBytes(StandardCharsets.UTF_8);
            String manifestDigest = blob(dir, manifest);
            Files.writeString(dir.resolve("index.json"), "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":"
                    + "\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:" + manifestDigest
                    + "\",\"size\":" + manifest.length + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\""
                    + tag + "\"}}]}");
            Files.writeString(dir.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
            return new OciLayout(dir, tag, "sha256:" + manifestDigest);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the OCI layout " + dir, e);
        }
    }

    /** skopeo's name of this image: {@code oci:<dir>:<tag>}. */
    public String reference() {
        return "oci:" + dir + ":" + tag;
    }

    public String manifestDigest() {
        return manifestDigest;
    }

    private static String blob(Path dir, byte[] bytes) throws IOException {
        String hex = sha256(bytes);
        Files.write(dir.resolve("blobs/sha256/" + hex), bytes);
        return hex;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A POSIX ustar archive of one regular file, mode 0644, owned by root, mtime 0 (reproducible). */
    static byte[] tar(String name, byte[] content) {
        byte[] header = new byte[512];
        put(header, 0, name);
        put(header, 100, "0000644");
        put(header, 108, "0000000");
        put(header, 116, "0000000");
        put(header, 124, String.format("%011o", content.length));
        put(header, 136, "00000000000");
        java.util.Arrays.fill(header, 148, 156, (byte) ' ');
        header[156] = '0';
        put(header, 257, "ustar");
        put(header, 263, "00");
        int sum = 0;
        for (byte b : header) {
            sum += b & 0xff;
        }
        put(header, 148, String.format("%06o", sum));
        header[154] = 0;
        header[155] = ' ';
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header);
        out.writeBytes(content);
        out.writeBytes(new byte[(512 - content.length % 512) % 512]);
        out.writeBytes(new byte[1024]);
        return out.toByteArray();
    }

    private static void put(byte[] header, int offset, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, header, offset, bytes.length);
    }
}
