package dev.crifresh.common.evidence;

import java.util.Objects;

/**
 * What the CRI runtime itself reports about the registry credentials it holds, compared with the credentials
 * of the config files the agent read (both fingerprinted the same way). Only the agent's opt-in CRI status
 * read produces anything but {@link #UNAVAILABLE}.
 *
 * @param state  the comparison
 * @param detail one short clause for the verdict's message (never a credential)
 */
public record RuntimeAuth(State state, String detail) {
    public enum State {
        /** Not asked, not answered, or the runtime does not report its credentials (containerd 2.x). */
        UNAVAILABLE,
        /** The runtime holds exactly the files' credentials, for every registry. */
        SAME,
        /** The runtime holds other credentials than the files name. */
        DIFFERENT
    }

    public static final RuntimeAuth UNAVAILABLE = new RuntimeAuth(State.UNAVAILABLE, "not asked");

    public RuntimeAuth {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(detail, "detail");
    }
}
