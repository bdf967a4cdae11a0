package dev.crifresh.sim.scenario;

/**
 * What a node's config holds: the scenario's desired credential ({@code credential: desired}) or an
 * explicit one. {@code explicit} is null for {@code desired}.
 */
public record CredentialChoice(Credential explicit) {
    public static final CredentialChoice DESIRED = new CredentialChoice(null);

    public Credential resolve(Credential desired) {
        return explicit == null ? desired : explicit;
    }
}
