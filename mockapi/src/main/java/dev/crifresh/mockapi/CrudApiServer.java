package dev.crifresh.mockapi;

import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's {@link KubernetesMockServer} in CRUD mode with the {@link MockApiDispatcher}: real HTTP and
 * watches, expectations ({@code server.expect()}) answered before the CRUD store.
 */
public final class CrudApiServer {
    private CrudApiServer() {
    }

    /** A server started on the loopback address, on a free port. */
    public static KubernetesMockServer crud() {
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        KubernetesMockServer server = crud(expectations, new MockApiDispatcher(expectations));
        server.init(InetAddress.getLoopbackAddress(), 0);
        return server;
    }

    /**
     * A server not yet started, for a caller that wraps the dispatcher; {@code dispatcher} must serve the
     * same {@code expectations} (a {@link MockApiDispatcher} built on them, or one wrapping it).
     */
    public static KubernetesMockServer crud(Map<ServerRequest, Queue<ServerResponse>> expectations,
            Dispatcher dispatcher) {
        return new KubernetesMockServer(new Context(Fabric8Json.MAPPER), new MockWebServer(), expectations,
                dispatcher, false, VERSION);
    }

    /**
     * What {@code /version} answers: the Kubernetes version the simulated kubelets report (the mock's
     * default, {@code 0.0} with no git version, makes kubectl print a version-skew warning).
     */
    private static final VersionInfo VERSION = new VersionInfo.Builder().withMajor("1").withMinor("34")
            .withGitVersion(Discovery.GIT_VERSION).withGitCommit("crifresh-mockapi").withGitTreeState("clean")
            .withGoVersion("go1.24.6").withCompiler("gc").withPlatform("linux/amd64").build();
}
