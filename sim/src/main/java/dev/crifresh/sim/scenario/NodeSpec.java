package dev.crifresh.sim.scenario;

import java.time.Duration;

/**
 * One node as the deploy job finds it (docs/scenarios.md). Times are relative: the boot happened
 * {@code bootedAgo} before the simulation starts, containerd and the newest config write are relative
 * to that boot ({@code configWrittenAfterBoot} may be negative: a file that looks older than the boot).
 *
 * @param configUpdate null when the platform renders nothing during the run
 */
public record NodeSpec(
        String name,
        Role role,
        Duration bootedAgo,
        Duration containerdStartedAfterBoot,
        Duration configWrittenAfterBoot,
        CredentialChoice credential,
        ConfigUpdate configUpdate,
        Marker marker,
        AgentMode agent,
        boolean ready,
        boolean cordoned,
        RebootBehaviour reboot,
        int pods) {
}
