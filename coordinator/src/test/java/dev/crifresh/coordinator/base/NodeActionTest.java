package dev.crifresh.coordinator.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.classify.NodeFacts;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --action auto} per node, from the Node's osImage: anything not known to restart containerd is rebooted. */
class NodeActionTest {

    @ParameterizedTest(name = "[{index}] ''{0}'' -> {1}")
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
        "Talos (v1.14.0)                | wait-restart",
        "Talos (v1.14.1)                | wait-restart",
        "Talos (v1.15.0-alpha.1)        | wait-restart",   // cut after 1.14: carries 1.14's restart
        "Talos (v1.20.3)                | wait-restart",
        "Talos (v2.0.0)                 | wait-restart",
        "Talos (v1.14.0-beta.0)         | reboot",         // a 1.14 pre-release: cannot be told to carry it
        "Talos (v1.14.0-alpha.2)        | reboot",
        "Talos (v1.13.4)                | reboot",
        "Talos (v1.13.99)               | reboot",
        "Talos (v1.9.0)                 | reboot",
        "Talos (v0.14.0)                | reboot",
        "Talos (1.14.1)                 | reboot",         // no v: not how Talos renders it
        "Talos (v1.14)                  | reboot",
        "Talos (v01.14.0)               | reboot",
        "Talos (v1.14.1) extra          | reboot",
        "Talos v1.14.1                  | reboot",
        "talos (v1.14.1)                | reboot",
        "Talos (v1.99999999999.0)       | reboot",         // overflows: unreadable
        "Talos (v1.14.1-)               | reboot",
        "Ubuntu 22.04.4 LTS             | reboot",
        "Flatcar Container Linux 3815.2.0 | reboot",
        "garbage(v1.14.1)               | reboot",
        "''                             | reboot",
        "'   '                          | reboot",
        "NULL                           | reboot",
    })
    void autoDecidesFromTheTalosVersion(String osImage, String expected) {
        NodeAction a = NodeAction.forNode(Action.AUTO, facts(osImage));
        assertEquals(expected, a.wire(), osImage + ": " + a.why());
        assertEquals(expected.equals("reboot") ? Action.REBOOT : Action.NONE, a.action());
    }

    @Test
    void missingNodeInfoIsRebooted() {
        Node node = new NodeBuilder().withNewMetadata().withName("w1").endMetadata().withNewStatus().endStatus().build();
        NodeFacts f = NodeFacts.of(node);
        assertNull(f.osImage());
        NodeAction a = NodeAction.forNode(Action.AUTO, f);
        assertEquals(Action.REBOOT, a.action());
        assertEquals("no Talos version reported", a.why());
        Node noStatus = new NodeBuilder().withNewMetadata().withName("w2").endMetadata().build();
        assertEquals(Action.REBOOT, NodeAction.forNode(Action.AUTO, NodeFacts.of(noStatus)).action());
    }

    @Test
    void rebootAndNoneIgnoreTheVersion() {
        for (String image : new String[] {"Talos (v1.13.4)", "Talos (v1.14.1)", null}) {
            assertEquals(Action.REBOOT, NodeAction.forNode(Action.REBOOT, facts(image)).action());
            assertEquals(Action.NONE, NodeAction.forNode(Action.NONE, facts(image)).action());
        }
    }

    @Test
    void theReasonNamesTheVersionAndAnUnreadableImageIsQuotedSafely() {
        assertEquals("Talos v1.14.1 restarts containerd itself on a config change",
                NodeAction.forNode(Action.AUTO, facts("Talos (v1.14.1)")).why());
        assertEquals("Talos v1.13.4 does not restart containerd on a config change",
                NodeAction.forNode(Action.AUTO, facts("Talos (v1.13.4)")).why());
        String why = NodeAction.forNode(Action.AUTO, facts("Talos (v1.14.1)\n" + "x".repeat(200))).why();
        assertTrue(why.startsWith("not a Talos version crifresh can read: 'Talos (v1.14.1)?"), why);
        assertTrue(why.length() < 140, why);
    }

    @Test
    void parsesTheParts() {
        assertEquals(new TalosVersion(1, 15, 0, "alpha.1"), TalosVersion.parse("Talos (v1.15.0-alpha.1)"));
        assertEquals("v1.14.0-beta.0", TalosVersion.parse("Talos (v1.14.0-beta.0)").toString());
        assertNull(TalosVersion.parse("Talos ()"));
    }

    private static NodeFacts facts(String osImage) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName("w1").endMetadata();
        Node node = b.withNewStatus().withNewNodeInfo().withOsImage(osImage).endNodeInfo().endStatus().build();
        return NodeFacts.of(node);
    }
}
