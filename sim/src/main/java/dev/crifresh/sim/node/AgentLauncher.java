package dev.crifresh.sim.node;

import dev.crifresh.agent.AgentRuntime;
import java.util.Optional;

/** Starts the node agent for one boot of a simulated node, pointed at that node's host root and clock. */
public interface AgentLauncher {

    /** Blocks until the agent runs; throws when it cannot start. */
    RunningAgent start(String nodeName, HostRoot host, SimulatedHostClock clock) throws Exception;

    /** A started agent; {@link #stop} leaves its last condition in place, as a dying pod would. */
    interface RunningAgent {
        void stop() throws Exception;

        /** The agent itself, where it is a real {@link AgentRuntime} (its metrics and last attestation). */
        default Optional<AgentRuntime> runtime() {
            return Optional.empty();
        }
    }
}
