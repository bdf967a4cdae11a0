package dev.crifresh.images;

import dev.crifresh.reality.RealContainerd;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code ctr} of the real containerd's generation (Debian's own for 1.6) in its mount namespace and root ({@code nsenter --mount --root}:
 * the harness chroots containerd into the node's tree), where {@code /run/containerd},
 * {@code /var/lib/containerd} and {@code /etc/cri} are the node's, on the {@code k8s.io} namespace, in which
 * the CRI plugin pulled the image (as the kubelet has it pull). Paths given to it are the node's:
 * {@link #nodePath} turns a machine path inside the node's tree into one.
 */
final class NodeCtr {

    static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final RealContainerd containerd;
    private final String ctr;

    /** @param ctr the {@code ctr} of containerd's own generation, as a path in its root ({@code ctr} on its PATH) */
    NodeCtr(RealContainerd containerd, String ctr) {
        this.containerd = containerd;
        this.ctr = ctr;
    }

    /**
     * The host's PID namespace as runc joins it: containerd's own. (Not /proc/1/ns/pid: where the tests
     * run in a VM or container, pid 1 may refuse even root to open its namespace.)
     */
    String hostPidNamespace() {
        return "/proc/" + containerd.pid() + "/ns/pid";
    }

    List<String> command(Object... args) {
        return Command.of("nsenter", "--target", containerd.pid(), "--mount", "--root", "--wd=/", "--", ctr,
                "--namespace", "k8s.io", List.of(args));
    }

    Command.Result run(Duration timeout, Object... args) {
        return Command.run(timeout, command(args));
    }

    Command.Result check(Object... args) {
        return run(TIMEOUT, args).check();
    }

    /** The image's OCI config blob as containerd stored it when pulling ({@code config}, {@code rootfs}, ...). */
    JsonNode imageConfigBlob(String ref) {
        String digest = null;
        for (String line : check("images", "ls", "name==" + ref).stdout().lines().skip(1).toList()) {
            String[] cells = line.trim().split("\\s+");
            if (cells[0].equals(ref)) {
                digest = cells[2];
            }
        }
        if (digest == null) {
            throw new AssertionError("containerd has no image " + ref);
        }
        JsonNode manifest = JSON.readTree(check("content", "get", digest).stdout());
        if (manifest.has("manifests")) {
            manifest = JSON.readTree(check("content", "get", manifest.path("manifests").get(0).path("digest").asString()).stdout());
        }
        return JSON.readTree(check("content", "get", manifest.path("config").path("digest").asString()).stdout());
    }

    JsonNode imageConfig(String ref) {
        return imageConfigBlob(ref).path("config");
    }

    /**
     * Mounts a container root file system on the image, as the CRI plugin unpacked it, at {@code target} in
     * containerd's namespace: an active snapshot whose parent is the chain id the config's diff ids give,
     * as the CRI plugin prepares one per container (writable underneath; runc makes it read-only after
     * mounting the volumes when the spec says so). Not {@code ctr images mount}: it unpacks again, and
     * Talos's {@code discard_unpacked_layers} has removed the compressed layers it would read.
     */
    void mountImage(String ref, Path target) {
        List<String> diffIds = new java.util.ArrayList<>();
        imageConfigBlob(ref).path("rootfs").path("diff_ids").values().forEach(d -> diffIds.add(d.asString()));
        String chain = chainId(diffIds);
        String key = "crifresh-images-" + target.getFileName();
        mountSnapshot(check("snapshots", "--snapshotter", "native", "prepare", "--target", target, key, chain).stdout().strip(), target);
    }

    /**
     * Mounts the snapshot {@link #mountImage} prepared at {@code target} again, in a new containerd's mount
     * namespace (the mount lived in the old one's): as it is, with what containers created in it.
     */
    void remountImage(Path target) {
        mountSnapshot(check("snapshots", "--snapshotter", "native", "mounts", target,
                "crifresh-images-" + target.getFileName()).stdout().strip(), target);
    }

    private void mountSnapshot(String mount, Path target) {
        // "mount -t bind <source> <target> -o rbind,rw"
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^mount -t (\\S+) (\\S+) (\\S+) -o (\\S+)$").matcher(mount);
        if (!m.matches()) {
            throw new AssertionError("unexpected mount from ctr snapshots view: " + mount);
        }
        inNamespace("mkdir", "-p", target);
        // -n: without it, libmount probes whether /etc/mtab is writable by creating it in the node's /etc,
        // which moves the stamps of an ancestor of /etc/cri and makes the node stale
        inNamespace("mount", "-n", "-o", m.group(4), m.group(2), target);
    }

    void unmountImage(Path target) {
        inNamespaceQuietly("umount", "-n", target);
        run(TIMEOUT, "snapshots", "--snapshotter", "native", "rm", "crifresh-images-" + target.getFileName());
    }

    void inNamespace(Object... command) {
        inNamespaceQuietly(command).check();
    }

    private Command.Result inNamespaceQuietly(Object... command) {
        return Command.run(TIMEOUT, Command.of("nsenter", "--target", containerd.pid(), "--mount", "--root", "--wd=/", "--",
                List.of(command)));
    }

    /** The node's path of {@code machinePath}, which must lie in the node's tree (containerd's root). */
    Path nodePath(Path machinePath) {
        Path root = containerd.node().hostRoot();
        if (!machinePath.startsWith(root)) {
            throw new IllegalArgumentException(machinePath + " is outside the node's tree " + root);
        }
        return Path.of("/").resolve(root.relativize(machinePath).toString());
    }

    /** The OCI chain id of a layer stack: the first diff id, then sha256("<parent chain id> <diff id>"). */
    static String chainId(List<String> diffIds) {
        String chain = diffIds.get(0);
        for (String diffId : diffIds.subList(1, diffIds.size())) {
            try {
                byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                        .digest((chain + " " + diffId).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                chain = "sha256:" + java.util.HexFormat.of().formatHex(hash);
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        return chain;
    }
}
