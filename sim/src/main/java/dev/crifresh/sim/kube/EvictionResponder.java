package dev.crifresh.sim.kube;

import dev.crifresh.sim.base.SimEvent;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Answers the Eviction API, which fabric8's mock server does not emulate: for each evictable pod an
 * expectation on {@code POST /api/v1/namespaces/<ns>/pods/<pod>/eviction} replies 201 and has the pod
 * deleted shortly after (as its graceful termination would), or 404 once the pod is gone. DaemonSet and
 * mirror pods, which a drain must skip, answer 201 as a real API server would (their controller or the
 * kubelet brings them back at once, so they stay) and the attempt is recorded as a
 * {@link SimEvent.Kind#FORBIDDEN_EVICTION}.
 */
public final class EvictionResponder {
    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final ScheduledExecutorService platform;
    /** Where evicted pods terminate: their deletions must not queue behind the platform's other work. */
    private final ScheduledExecutorService terminations;
    /** How long an evicted pod takes to terminate. */
    private final Duration termination;
    private final Consumer<SimEvent> events;
    private static final String SUCCESS =
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}";

    private final Set<String> live = ConcurrentHashMap.newKeySet();
    /** Told of every evicted pod once it is gone (its controller then replaces it). */
    private volatile Consumer<Pod> gone = pod -> { };
    private final Map<String, Integer> evictions = new ConcurrentHashMap<>();

    public EvictionResponder(KubernetesMockServer server, KubernetesClient client, ScheduledExecutorService platform,
            ScheduledExecutorService terminations, Duration termination, Consumer<SimEvent> events) {
        this.server = server;
        this.client = client;
        this.platform = platform;
        this.terminations = terminations;
        this.termination = termination;
        this.events = events;
    }

    public void onGone(Consumer<Pod> gone) {
        this.gone = gone;
    }

    public void allow(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String node = pod.getSpec().getNodeName();
        live.add(key(namespace, name));
        server.expect().post().withPath("/api/v1/namespaces/" + namespace + "/pods/" + name + "/eviction")
                .andReply(new Reply(pod)).always();
    }

    /** A pod a drain must not evict: an attempt is answered, recorded, and changes nothing. */
    public void watchForbidden(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String node = pod.getSpec().getNodeName();
        server.expect().post().withPath("/api/v1/namespaces/" + namespace + "/pods/" + name + "/eviction")
                .andReply(201, request -> {
                    events.accept(new SimEvent(Instant.now(), node, SimEvent.Kind.FORBIDDEN_EVICTION,
                            key(namespace, name)));
                    return SUCCESS;
                }).always();
    }

    /** How many eviction requests for this pod were accepted. */
    public int evictions(String namespace, String name) {
        return evictions.getOrDefault(key(namespace, name), 0);
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    private final class Reply implements ResponseProvider<Object> {
        private final Pod pod;
        private final String namespace;
        private final String name;
        private final String node;
        private final ThreadLocal<Boolean> accepted = new ThreadLocal<>();
        private Headers headers = new Headers.Builder().add("Content-Type", "application/json").build();

        Reply(Pod pod) {
            this.pod = pod;
            this.namespace = pod.getMetadata().getNamespace();
            this.name = pod.getMetadata().getName();
            this.node = pod.getSpec().getNodeName();
        }

        @Override
        public int getStatusCode(RecordedRequest request) {
            boolean ok = live.remove(key(namespace, name));
            accepted.set(ok);
            if (ok) {
                evictions.merge(key(namespace, name), 1, Integer::sum);
                events.accept(new SimEvent(Instant.now(), node, SimEvent.Kind.POD_EVICTED, key(namespace, name)));
                terminations.schedule(() -> {
                    client.pods().inNamespace(namespace).withName(name).delete();
                    platform.execute(() -> gone.accept(pod)); // its controller reacts on the pod thread
                }, termination.toNanos(), TimeUnit.NANOSECONDS);
            }
            return ok ? 201 : 404;
        }

        @Override
        public Object getBody(RecordedRequest request) {
            boolean ok = Boolean.TRUE.equals(accepted.get());
            accepted.remove();
            return ok
                    ? SUCCESS
                    : "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                            + "\"message\":\"pods \\\"" + name + "\\\" not found\",\"reason\":\"NotFound\",\"code\":404}";
        }

        @Override
        public Headers getHeaders() {
            return headers;
        }

        @Override
        public void setHeaders(Headers headers) {
            this.headers = headers;
        }
    }
}
