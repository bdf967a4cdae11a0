package dev.crifresh.sim.scenario;

import java.time.Duration;

/** The platform renders a new config on the node {@code after} the run started (a machine-config patch). */
public record ConfigUpdate(Duration after, CredentialChoice credential) {
}
