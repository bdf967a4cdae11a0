package dev.crifresh.sim.scenario;

/** A registry username and password. toString never shows the password. */
public record Credential(String username, String password) {
    @Override
    public String toString() {
        return "Credential[username=" + username + ", password=<set>]";
    }
}
