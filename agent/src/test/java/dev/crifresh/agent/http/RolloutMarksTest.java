package dev.crifresh.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;

class RolloutMarksTest {

    @Test
    void aNodeWithoutMarksHasNone() {
        assertEquals(RolloutMarks.NONE, RolloutMarks.of(new NodeBuilder().withNewMetadata().withName("n").endMetadata().build()));
        assertEquals(RolloutMarks.NONE, RolloutMarks.of(new Node()));
    }

    @Test
    void theRunItsPhaseTheTaintAndTheUncarriedRebootAreRead() {
        Node node = new NodeBuilder().withNewMetadata().withName("n")
                .addToAnnotations("crifresh.dev/rollout", "run-2026/x/rebooting")
                .addToAnnotations("crifresh.dev/reboot-not-carried-out", "the boot id did not change")
                .endMetadata()
                .withNewSpec().addNewTaint().withKey("other").withEffect("NoSchedule").endTaint()
                .addNewTaint().withKey("crifresh.dev/stale").withValue("run-2026").withEffect("PreferNoSchedule").endTaint()
                .endSpec().build();
        assertEquals(new RolloutMarks("run-2026/x", "rebooting", "run-2026", true), RolloutMarks.of(node));
    }

    @Test
    void anOwnershipWithoutAPhaseIsUnreadable() {
        Node node = new NodeBuilder().withNewMetadata().withName("n").addToAnnotations("crifresh.dev/rollout", "run-1")
                .endMetadata().build();
        RolloutMarks marks = RolloutMarks.of(node);
        assertEquals("run-1", marks.run());
        assertEquals("unreadable", marks.phase());
        assertFalse(marks.rebootNotCarriedOut());
        assertTrue(marks.staleTaintRun() == null);
    }

    @Test
    void theMetricsFollowTheMarks() {
        AgentMetrics m = new AgentMetrics();
        String none = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);
        assertFalse(none.contains("crifresh_node_rollout{"), none);
        assertTrue(none.contains("crifresh_node_reboot_not_carried_out 0.0"), none);

        m.nodeSeen(new RolloutMarks("r1", "draining", "r1", false));
        m.nodeSeen(new RolloutMarks("r1", "rebooting", "r1", true));
        String held = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);
        assertTrue(held.contains("crifresh_node_rollout{phase=\"rebooting\",run=\"r1\"} 1.0"), held);
        assertFalse(held.contains("phase=\"draining\""), "one phase at a time: " + held);
        assertTrue(held.contains("crifresh_node_stale_taint{run=\"r1\"} 1.0"), held);
        assertTrue(held.contains("crifresh_node_reboot_not_carried_out 1.0"), held);

        m.nodeSeen(RolloutMarks.NONE);
        String released = m.registry().scrape(AgentHttpServer.PROMETHEUS_CONTENT_TYPE);
        assertFalse(released.contains("crifresh_node_rollout{"), released);
        assertFalse(released.contains("crifresh_node_stale_taint{"), released);
        assertTrue(released.contains("crifresh_node_reboot_not_carried_out 0.0"), released);
    }
}
