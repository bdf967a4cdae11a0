package dev.crifresh.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.Context;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8 decodes every response on the Vert.x event loop that received it, and the first decode of a kind
 * builds its Jackson deserializer there (seconds on a cold, loaded JVM: docs/coordinator.md, "The event
 * loop"). The CLI's client builds them beforehand ({@code DecoderWarmup}): during a whole rollout through
 * that client, no kind may be decoded on an event loop before it was decoded off it.
 */
class EventLoopDecodeTest {
    @Test
    void aRolloutNeverBuildsADecoderOnTheEventLoop() throws Exception {
        try (Harness h = new Harness()) {
            h.worker("w1", Verdict.STALE);
            h.worker("w2", Verdict.FRESH);
            h.controlPlane("cp1", Verdict.FRESH);
            h.cluster.addPod("default", "app-1", "w1");
            h.cluster.acceptEvictions("default", "app-1", h.evictions);
            FirstDecodes decodes = new FirstDecodes();
            Report r = h.runConnected(Harness.fastSettings(), vertx -> ClusterOptions.client(vertx, h.cluster.client.getConfiguration(), decodes))
                    .rollout().report();
            assertEquals(Result.SUCCEEDED, r.result(), r.toJson());
            assertEquals(Outcome.REBOOTED, Harness.line(r, "w1").outcome());
            assertEquals(List.of("default/app-1"), h.evictions.accepted());
            // The premise: fabric8 decodes on the event loop (else this test would prove nothing).
            assertTrue(decodes.onEventLoop.get() > 0, "no response was decoded on an event loop: " + decodes.first);
            List<String> builtOnLoop = decodes.first.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).sorted().toList();
            assertEquals(List.of(), builtOnLoop, "first decoded on an event loop (add them to DecoderWarmup.KINDS): " + decodes.first);
        }
    }

    /** Records, per target type, whether its first decode ran on an event loop. */
    static final class FirstDecodes extends KubernetesSerialization {
        final Map<String, Boolean> first = new ConcurrentHashMap<>();
        final AtomicInteger onEventLoop = new AtomicInteger();

        FirstDecodes() {
            super(JsonMapper.builder().build(), false);
        }

        private void saw(Type type) {
            boolean loop = Context.isOnEventLoopThread();
            if (loop) {
                onEventLoop.incrementAndGet();
            }
            first.putIfAbsent(type.getTypeName(), loop);
        }

        @Override
        public <T> T unmarshal(InputStream is, TypeReference<T> type) {
            saw(type.getType());
            return super.unmarshal(is, type);
        }

        @Override
        public <T> T unmarshal(InputStream is, Class<T> type) {
            saw(type);
            return super.unmarshal(is, type);
        }

        @Override
        public <T> T unmarshal(String text, Class<T> type) {
            saw(type);
            return super.unmarshal(text, type);
        }

        @Override
        public <T> T unmarshal(String text, TypeReference<T> type) {
            saw(type.getType());
            return super.unmarshal(text, type);
        }
    }
}
