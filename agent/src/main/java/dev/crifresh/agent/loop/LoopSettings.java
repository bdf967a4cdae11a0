package dev.crifresh.agent.loop;

import dev.crifresh.common.evidence.ContainerdMatcher;
import java.time.Duration;

/**
 * What the loop reads of the agent's settings ({@code AgentSettings} implements it), so that the loop does not
 * depend on the package that wires the agent together.
 */
public interface LoopSettings {
    /** The Node this agent observes. */
    String nodeName();

    /** Recognises the CRI containerd's command line. */
    ContainerdMatcher matcher();

    /** Re-evaluate and re-publish at least this often. */
    Duration heartbeat();

    /** How often the tracked containerd's {@code stat} and the watched files' attributes are polled. */
    Duration procPoll();

    /** Quiet period after a file event before the config is read. */
    Duration debounce();
}
