package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.rollout.api.GuardedPatch;
import org.junit.jupiter.api.Test;

/** The runner of a node's roll sends nothing while the run may not write, and checks again once it may. */
class NodeRunnerFenceTest extends NodeRunnerFixture {
    @Test
    void nothingIsSentWhileTheRunMayNotWriteAndTheCheckIsReadAgainAfter() {
        NodeRunner roll = host.roll();
        host.beforeSecondConfirm = () -> host.mayWrite = false; // the first one is the claim's
        roll.start();
        assertTrue(host.driverCalls.isEmpty(), "confirm fenced: no driver call");
        int gets = nodes.gets;
        host.mayWrite = true;
        host.outageOver.complete();
        assertEquals(gets + 1, nodes.gets, "the last-moment check is read again after the outage");
        assertEquals(1, host.driverCalls.size());
    }

    @Test
    void aDriverCallTheWorkerFenceRefusedIsCheckedAgainNotFailed() {
        NodeRunner roll = host.roll();
        roll.start();
        int gets = nodes.gets;
        host.mayWrite = false; // the hold lapsed between the confirm and the worker (an allowed outage)
        host.driverCalls.get(0).fail(new GuardedPatch.Fenced());
        assertNull(roll.end(), "nothing was sent: not a failed reboot request");
        host.mayWrite = true;
        host.outageOver.complete();
        assertEquals(gets + 1, nodes.gets, "the last-moment check is read again after the outage");
        assertEquals(2, host.driverCalls.size(), "the reboot is requested once the checks pass again");
    }
}
