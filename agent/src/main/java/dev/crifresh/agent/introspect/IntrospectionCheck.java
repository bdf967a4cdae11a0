package dev.crifresh.agent.introspect;

import dev.crifresh.agent.host.HostSnapshot;
import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.common.evidence.ContainerdSocket;
import dev.crifresh.common.evidence.Introspection;
import dev.crifresh.common.evidence.IntrospectionAnswer;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.registry.ContainerdReading;
import dev.crifresh.common.registry.CredentialFingerprint;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.TreeSet;

/**
 * The opt-in introspection check's I/O ({@code --containerd-introspection}): asks containerd's own socket (its
 * {@code --address}, under the host root) and adds the answer and the files' credential hosts to the observation;
 * the rules judge them ({@code IntrospectionRules}). Blocking: call it on the evaluation's worker thread.
 */
public final class IntrospectionCheck implements AutoCloseable {
    private final IntrospectionSource source;
    private final Path hostRoot;
    /** Only to tell which hosts the files give a credential; the fingerprints themselves are dropped. */
    private final byte[] key = new byte[CredentialFingerprint.MIN_KEY_BYTES];

    public IntrospectionCheck(IntrospectionSource source, Path hostRoot) {
        this.source = source;
        this.hostRoot = hostRoot;
        new SecureRandom().nextBytes(key);
    }

    /** The observation with the introspection evidence; unchanged without a single containerd to ask. */
    public Observation inspect(HostSnapshot snapshot, boolean talosMode, ContainerdReading.Generation generation) {
        Observation o = snapshot.observation();
        if (o.candidates().size() != 1) {
            return o;
        }
        List<String> hosts = List.copyOf(new TreeSet<>(RegistryFingerprints.of(snapshot.tomlDocuments(), key,
                talosMode, generation).configsHosts()));
        ContainerdSocket socket = o.containerdSocket();
        if (socket == null) {
            return o.withIntrospection(new Introspection("(none)", new IntrospectionAnswer.Unanswered(
                    "containerd's command line names no single --address"), hosts));
        }
        if (!socket.path().startsWith("/")) {
            return o.withIntrospection(new Introspection(socket.path(), new IntrospectionAnswer.Unanswered(
                    "the address is not an absolute path"), hosts));
        }
        Path onHost = hostRoot.resolve(socket.path().substring(1));
        return o.withIntrospection(new Introspection(socket.path(), source.ask(onHost), hosts));
    }

    @Override
    public void close() {
        source.close();
    }
}
