package dev.crifresh.coordinator.rollout.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharedNodeListTest {
    /** The list requests sent, in order; each answered by the test. */
    private final List<Promise<List<Node>>> sent = new ArrayList<>();
    private final SharedNodeList<Node> shared = new SharedNodeList<>(() -> {
        Promise<List<Node>> request = Promise.promise();
        sent.add(request);
        return request.future();
    });

    @Test
    void aCallerAloneSendsItsOwnList() {
        Future<List<Node>> first = shared.fresh();
        assertEquals(1, sent.size());
        sent.get(0).complete(nodes("a"));
        assertEquals(List.of("a"), names(first));

        Future<List<Node>> later = shared.fresh();
        assertEquals(2, sent.size(), "nothing in flight: a new list, never the answered one");
        sent.get(1).complete(nodes("a", "b"));
        assertEquals(List.of("a", "b"), names(later));
    }

    @Test
    void callersThatAskWhileAListIsInFlightShareTheNextOneSentAfterItAnswers() {
        Future<List<Node>> first = shared.fresh();
        Future<List<Node>> second = shared.fresh();
        Future<List<Node>> third = shared.fresh();
        assertEquals(1, sent.size(), "the waiting callers do not send while a list is in flight");

        sent.get(0).complete(nodes("old"));
        assertEquals(List.of("old"), names(first));
        assertFalse(second.isComplete(), "the in-flight list was sent before they asked: not fresh for them");
        assertEquals(2, sent.size(), "the next list is sent the moment the in-flight one answers");

        sent.get(1).complete(nodes("new"));
        assertEquals(List.of("new"), names(second));
        assertSame(second.result(), third.result(), "one list for every caller that waited");
        assertEquals(2, sent.size());
    }

    @Test
    void aFailedListFailsItsCallersAndTheNextCallerSendsAgain() {
        Future<List<Node>> first = shared.fresh();
        Future<List<Node>> waiting = shared.fresh();
        sent.get(0).fail("boom");
        assertTrue(first.failed());
        sent.get(1).fail("still down");
        assertTrue(waiting.failed());
        assertEquals("still down", waiting.cause().getMessage());

        Future<List<Node>> after = shared.fresh();
        assertEquals(3, sent.size());
        sent.get(2).complete(nodes("x"));
        assertEquals(List.of("x"), names(after));
        assertNotSame(first, after);
    }

    private static List<Node> nodes(String... names) {
        List<Node> nodes = new ArrayList<>();
        for (String name : names) {
            nodes.add(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build());
        }
        return nodes;
    }

    private static List<String> names(Future<List<Node>> list) {
        assertTrue(list.succeeded(), () -> "not a list: " + list);
        return list.result().stream().map(n -> n.getMetadata().getName()).toList();
    }
}
