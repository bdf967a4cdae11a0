package dev.crifresh.agent.introspect;

import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.common.evidence.ContainerdSocket;
import dev.crifresh.common.evidence.Introspection;
import dev.crifresh.common.evidence.IntrospectionAnswer;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.registry.PullCredentials;
import java.nio.file.Path;
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

    public IntrospectionCheck(IntrospectionSource source, Path hostRoot) {
        this.source = source;
        this.hostRoot = hostRoot;
    }

    /**
     * The observation with the introspection evidence; unchanged without a single containerd to ask.
     *
     * @param reading the evaluation's one reading of the config files ({@link RegistryFingerprints}): which hosts
     *                they give a {@code registry.configs} credential
     */
    public Observation inspect(Observation o, RegistryFingerprints.Result reading) {
        if (o.candidates().size() != 1) {
            return o;
        }
        List<String> hosts = List.copyOf(new TreeSet<>(reading.configsHosts()));
        // auths entries show as loaded hosts without a configs entry, or as auths overriding configs.
        boolean auths = !reading.configsHosts().containsAll(reading.loaded().keySet()) || reading.problems().stream()
                .anyMatch(p -> p.kind() == PullCredentials.Kind.AUTHS_OVERRIDE_CONFIGS);
        ContainerdSocket socket = o.containerdSocket();
        if (socket == null) {
            return o.withIntrospection(new Introspection("(none)", new IntrospectionAnswer.Unanswered(
                    "containerd's command line names no single --address"), hosts, auths));
        }
        if (!socket.path().startsWith("/")) {
            return o.withIntrospection(new Introspection(socket.path(), new IntrospectionAnswer.Unanswered(
                    "the address is not an absolute path"), hosts, auths));
        }
        Path onHost = hostRoot.resolve(socket.path().substring(1));
        return o.withIntrospection(new Introspection(socket.path(), source.ask(onHost), hosts, auths));
    }

    @Override
    public void close() {
        source.close();
    }
}
