package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.Context;
import java.util.List;

/**
 * Builds the client's JSON decoders for every kind the coordinator reads, before the first request.
 *
 * <p>fabric8 8 decodes a response body on the thread that received it: with the Vert.x HTTP client that is
 * an event loop ({@code Vertx5AsyncBody} → {@code OperationSupport.handleResponse} →
 * {@code KubernetesSerialization.unmarshal}), and the coordinator cannot move that call. Decoding is cheap
 * once Jackson has built a kind's deserializer, but building it introspects every model class the kind
 * reaches (a Pod reaches about a hundred): seconds on a cold, loaded JVM, and it happened on the event loop
 * at the first pod list of the first drain (docs/coordinator.md, "The event loop"). Decoding one small
 * document per kind here, on the calling (non event-loop) thread, builds them all ahead of time.
 */
public final class DecoderWarmup {
    /** The kinds the coordinator's API calls and informers decode, as fabric8 asks for them. */
    public static final List<Class<?>> KINDS = List.of(Node.class, NodeList.class, Pod.class, PodList.class,
            Lease.class, LeaseList.class, Event.class, Secret.class, Status.class, WatchEvent.class);

    /** A watch event of each kind the informers watch: fabric8 resolves its {@code object} by kind. */
    private static final List<String> WATCH_EVENTS = List.of(
            "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Node\"}}",
            "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}}",
            "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\"}}");

    private DecoderWarmup() {
    }

    /** Decodes one document per kind; must not run on an event loop (that is the point). */
    public static void run(KubernetesSerialization serialization) {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("DecoderWarmup runs off the event loop");
        }
        for (Class<?> kind : KINDS) {
            if (kind != WatchEvent.class) {
                serialization.unmarshal(sample(kind), kind);
            }
        }
        for (String event : WATCH_EVENTS) {
            serialization.unmarshal(event, WatchEvent.class);
        }
    }

    private static String sample(Class<?> kind) {
        return kind.getSimpleName().endsWith("List") ? "{\"items\":[{}]}" : "{}";
    }
}
