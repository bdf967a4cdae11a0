package dev.crifresh.sim.serve;

import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.sim.scenario.Credential;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The files {@code serve} writes for the tools that look at the simulated cluster, and removes again when
 * it stops: the kubeconfig, and beside it the trust bundle ({@code trust/jwks.json},
 * {@code trust/fingerprint.key}) and the desired credential ({@code credential.json}, a docker
 * {@code config.json}) the real coordinator needs, and the Prometheus file_sd targets file. Each file is
 * written to a temporary name and moved into place, so a reader never sees half a file. The directory belongs
 * to one serve at a time ({@link #lock()}).
 */
final class ServeFiles implements AutoCloseable {
    static final String TRUST_DIR = "trust";
    static final String CREDENTIAL_FILE = "credential.json";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path kubeconfig;
    private final Path targets;
    private final List<Path> written = Collections.synchronizedList(new ArrayList<>());
    private final List<Path> createdDirs = Collections.synchronizedList(new ArrayList<>());
    private ServeLock lock;

    ServeFiles(Path kubeconfig, Path targets) {
        this.kubeconfig = kubeconfig.toAbsolutePath();
        this.targets = targets == null ? null : targets.toAbsolutePath();
    }

    Path kubeconfig() {
        return kubeconfig;
    }

    Path trustDir() {
        return kubeconfig.resolveSibling(TRUST_DIR);
    }

    Path credentialFile() {
        return kubeconfig.resolveSibling(CREDENTIAL_FILE);
    }

    /**
     * Takes the kubeconfig directory for this serve before anything is written there: a second serve using the
     * same directory is refused, naming the first ({@link ServeLock}).
     */
    void lock() throws IOException {
        createDirs(kubeconfig.getParent());
        lock = ServeLock.acquire(kubeconfig.getParent());
    }

    /** Names the API server in the lock, for the refusal of a second serve. */
    void lockServing(String apiUrl) throws IOException {
        if (lock != null) {
            lock.describe("pid " + ProcessHandle.current().pid() + ", API server " + apiUrl);
        }
    }

    /** The kubeconfig of a cluster served without authentication at {@code server}. */
    static String kubeconfigText(String server) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: crifresh-sim
                  cluster:
                    server: %s
                contexts:
                - name: crifresh-sim
                  context:
                    cluster: crifresh-sim
                    user: crifresh-sim
                current-context: crifresh-sim
                users:
                - name: crifresh-sim
                  user: {}
                """.formatted(server);
    }

    /** A docker {@code config.json} holding one registry credential. */
    static String dockerConfig(String registry, Credential credential) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode auth = root.putObject("auths").putObject(registry);
        auth.put("username", credential.username());
        auth.put("password", credential.password());
        auth.put("auth", Base64.getEncoder().encodeToString(
                (credential.username() + ":" + credential.password()).getBytes(StandardCharsets.UTF_8)));
        return root.toPrettyString() + "\n";
    }

    /** A Prometheus file_sd document: one target per node, labelled with the node's name. */
    static String targetsText(Map<String, Integer> portsByNode) {
        ArrayNode groups = JSON.createArrayNode();
        portsByNode.forEach((node, port) -> {
            ObjectNode group = groups.addObject();
            group.putArray("targets").add("127.0.0.1:" + port);
            group.putObject("labels").put("node", node).put("crifresh_sim", "true");
        });
        return groups.toPrettyString() + "\n";
    }

    void writeKubeconfig(String server) throws IOException {
        write(kubeconfig, kubeconfigText(server).getBytes(StandardCharsets.UTF_8), false);
    }

    void writeTrust(TrustBundle trust) throws IOException {
        write(trustDir().resolve(TrustBundle.JWKS_FILE), trust.jwksJson().getBytes(StandardCharsets.UTF_8), false);
        write(trustDir().resolve(TrustBundle.FINGERPRINT_KEY_FILE), trust.fingerprintKey(), true);
    }

    void writeCredential(String registry, Credential credential) throws IOException {
        write(credentialFile(), dockerConfig(registry, credential).getBytes(StandardCharsets.UTF_8), true);
    }

    void writeTargets(Map<String, Integer> portsByNode) throws IOException {
        if (targets != null) {
            write(targets, targetsText(portsByNode).getBytes(StandardCharsets.UTF_8), false);
        }
    }

    /** Creates the missing folders of {@code dir}, remembering them so that close removes them again. */
    private void createDirs(Path dir) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path d = dir; d != null && !Files.exists(d); d = d.getParent()) {
            missing.add(d);
        }
        Files.createDirectories(dir);
        createdDirs.addAll(missing);
    }

    private void write(Path file, byte[] content, boolean secret) throws IOException {
        Path dir = file.getParent();
        createDirs(dir);
        Path temp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            // createTempFile makes it 0600; only the file_sd targets are for other users (Prometheus) to read
            if (!secret && file.equals(targets)) {
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            Files.write(temp, content);
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        if (!written.contains(file)) {
            written.add(file);
        }
    }

    /** Removes every file written, and the folders it created where that leaves them empty. Never throws. */
    @Override
    public void close() {
        synchronized (written) {
            for (Path file : written) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // best effort: a file someone else removed or locked stays as it is
                }
            }
            written.clear();
        }
        if (lock != null) {
            lock.close();
            lock = null;
        }
        synchronized (createdDirs) {
            createdDirs.sort(Comparator.comparingInt(Path::getNameCount).reversed());
            for (Path dir : createdDirs) {
                try {
                    Files.deleteIfExists(dir);
                } catch (IOException e) {
                    // not empty: someone put their own files there
                }
            }
            createdDirs.clear();
        }
    }
}
