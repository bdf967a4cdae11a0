package dev.crifresh.common.attest;

/**
 * The attestation claims versions a coordinator reads: its own ({@link AttestationClaims#VERSION}) and the one before
 * it (N−1), never one newer. Upgrading the coordinator first keeps every agent readable during the chart's rollout;
 * agents newer than the coordinator are unknown (and so rebooted) until it is upgraded. docs/install.md "Upgrading".
 *
 * @param oldest the oldest claims version read (at least 1)
 * @param newest the newest claims version read
 */
public record ClaimsVersions(int oldest, int newest) {
    /** This release's policy: N−1 and N, where N is {@link AttestationClaims#VERSION}. */
    public static final ClaimsVersions SUPPORTED = new ClaimsVersions(Math.max(1, AttestationClaims.VERSION - 1),
            AttestationClaims.VERSION);

    public ClaimsVersions {
        if (oldest < 1 || newest < oldest) {
            throw new IllegalArgumentException("claims versions must be 1 <= oldest <= newest: " + oldest + ".." + newest);
        }
    }

    public boolean accepts(int v) {
        return v >= oldest && v <= newest;
    }

    /** "1" or "1–2": the range as the reasons name it. */
    public String range() {
        return oldest == newest ? Integer.toString(oldest) : oldest + "–" + newest;
    }

    /**
     * Why claims version {@code v} is not read, naming both versions, the agent's release when the claims carry it, and
     * the fix: a newer agent needs a newer coordinator (upgrade the coordinator first); an older one needs the chart
     * upgraded.
     */
    public String refusal(int v, String agent) {
        String from = agent == null || agent.isBlank() ? "" : " from agent " + Sentences.quote(agent);
        String supported = "this coordinator reads claims version" + (oldest == newest ? " " : "s ") + range();
        if (v > newest) {
            return "the attestation" + from + " has claims version " + v + "; " + supported
                    + ": the agents are newer than the coordinator — upgrade the coordinator first, then the chart";
        }
        return "the attestation" + from + " has claims version " + v + "; " + supported
                + ": the agents are older than this coordinator supports — upgrade the chart (agents) to a release"
                + " that writes version " + range() + ", or run the coordinator release that matches them";
    }
}
