package dev.crifresh.agent;

import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.agent.loop.LoopSettings;
import dev.crifresh.agent.publish.PublishSettings;
import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.registry.ContainerdReading;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything one agent needs besides its collaborators (Vert.x, the Kubernetes client, keys, clock).
 *
 * @param nodeName     the Node this agent observes and whose status it patches
 * @param procRoot     where the host's {@code /proc} is visible ({@code /proc} with {@code hostPID: true})
 * @param hostRoot     where the host's file system is mounted; watched paths resolve under it
 * @param watchGlobs   absolute node paths of the config files containerd loads; wildcards only in the
 *                     file name (see {@link WatchGlobs})
 * @param matcher      recognises the CRI containerd's command line
 * @param rules        margin and Talos mode for the evidence rules
 * @param heartbeat    re-evaluate and re-publish at least this often
 * @param validity     attestation lifetime ({@code exp = iat + validity})
 * @param procPoll     how often the tracked containerd's {@code stat} and the watched files' attributes are polled
 * @param debounce     quiet period after a file event before the config is read
 * @param metricsPort  HTTP port for /metrics and the probes; negative = no HTTP server, 0 = any free port
 * @param agentVersion published in the attestation's {@code agent} claim
 * @param criSocket    the CRI runtime's socket for the opt-in runtime-status proof, or null (the default: off;
 *                     the CRI socket is root on the node)
 * @param mounts       how the evidence is reached (the host root, or containerd's own root) and which
 *                     mounts on its way the platform creates besides Talos' own
 * @param containerdGeneration which containerd reads the config (its registry semantics), or null: both
 *                     must agree, except that Talos mode tells them apart by the root config's version
 * @param containerdIntrospection the opt-in introspection check (rule 1b): ask containerd's own socket (its
 *                     {@code --address} under the host root) for its pid and deprecations; off by default
 */
public record AgentSettings(
        String nodeName,
        Path procRoot,
        Path hostRoot,
        List<String> watchGlobs,
        ContainerdMatcher matcher,
        RuleSettings rules,
        Duration heartbeat,
        Duration validity,
        Duration procPoll,
        Duration debounce,
        int metricsPort,
        String agentVersion,
        MountPolicy mounts,
        ContainerdReading.Generation containerdGeneration,
        Path criSocket,
        boolean containerdIntrospection) implements LoopSettings, PublishSettings {

    public static final Duration DEFAULT_HEARTBEAT = Duration.ofMinutes(5);
    public static final Duration DEFAULT_VALIDITY = Duration.ofMinutes(15);
    public static final Duration DEFAULT_PROC_POLL = Duration.ofSeconds(5);
    public static final Duration DEFAULT_DEBOUNCE = Duration.ofMillis(100);
    public static final int DEFAULT_METRICS_PORT = 9402;

    public AgentSettings {
        requireText(nodeName, "nodeName");
        Objects.requireNonNull(procRoot, "procRoot");
        Objects.requireNonNull(hostRoot, "hostRoot");
        watchGlobs = List.copyOf(watchGlobs);
        if (watchGlobs.isEmpty()) {
            throw new IllegalArgumentException("watchGlobs: at least one config file must be watched");
        }
        watchGlobs.forEach(WatchGlobs::validate);
        Objects.requireNonNull(matcher, "matcher");
        Objects.requireNonNull(rules, "rules");
        requirePositive(heartbeat, "heartbeat");
        requirePositive(validity, "validity");
        requirePositive(procPoll, "procPoll");
        Objects.requireNonNull(debounce, "debounce");
        if (debounce.isNegative()) {
            throw new IllegalArgumentException("debounce must not be negative");
        }
        requireText(agentVersion, "agentVersion");
        Objects.requireNonNull(mounts, "mounts");
    }

    /** With the opt-in introspection check on or off. */
    public AgentSettings withContainerdIntrospection(boolean on) {
        return new AgentSettings(nodeName, procRoot, hostRoot, watchGlobs, matcher, rules, heartbeat, validity,
                procPoll, debounce, metricsPort, agentVersion, mounts, containerdGeneration, criSocket, on);
    }

    /** With the opt-in runtime-status proof on {@code socket} (null: off). */
    public AgentSettings withCriSocket(Path socket) {
        return new AgentSettings(nodeName, procRoot, hostRoot, watchGlobs, matcher, rules, heartbeat, validity,
                procPoll, debounce, metricsPort, agentVersion, mounts, containerdGeneration, socket, containerdIntrospection);
    }

    /** Production defaults (docs/design.md, "The rules"; issue 3) for one node. */
    public static AgentSettings defaults(String nodeName) {
        return new AgentSettings(nodeName, Path.of("/proc"), Path.of("/host"), WatchGlobs.TALOS_DEFAULT,
                ContainerdMatcher.talosCri(), RuleSettings.defaults(), DEFAULT_HEARTBEAT, DEFAULT_VALIDITY,
                DEFAULT_PROC_POLL, DEFAULT_DEBOUNCE, DEFAULT_METRICS_PORT, CrifreshVersion.current(), MountPolicy.DEFAULT,
                null, null, false);
    }

    public AgentSettings withRoots(Path newProcRoot, Path newHostRoot) {
        return new AgentSettings(nodeName, newProcRoot, newHostRoot, watchGlobs, matcher, rules, heartbeat,
                validity, procPoll, debounce, metricsPort, agentVersion, mounts, containerdGeneration, criSocket, containerdIntrospection);
    }

    public AgentSettings withMetricsPort(int port) {
        return new AgentSettings(nodeName, procRoot, hostRoot, watchGlobs, matcher, rules, heartbeat, validity,
                procPoll, debounce, port, agentVersion, mounts, containerdGeneration, criSocket, containerdIntrospection);
    }

    public AgentSettings withTiming(Duration newHeartbeat, Duration newValidity, Duration newProcPoll,
                                    Duration newDebounce) {
        return new AgentSettings(nodeName, procRoot, hostRoot, watchGlobs, matcher, rules, newHeartbeat,
                newValidity, newProcPoll, newDebounce, metricsPort, agentVersion, mounts, containerdGeneration, criSocket, containerdIntrospection);
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
    }

    private static void requirePositive(Duration value, String name) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
    }
}
