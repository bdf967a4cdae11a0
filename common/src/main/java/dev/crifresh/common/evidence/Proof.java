package dev.crifresh.common.evidence;

/** Which rule proved freshness; NONE for every verdict that is not fresh. */
public enum Proof {
    ORDERING("ordering"),
    CONTENT("content"),
    /** Rule 3 judged in the clock of containerd's socket, after a forward clock step (DESIGN, "The clock witness"). */
    SOCKET_ORDERING("socket-ordering"),
    /** The CRI runtime's own status reports the files' registry credentials (opt-in, containerd 1.x). */
    RUNTIME_STATUS("runtime-status"),
    NONE("none");

    private final String wire;

    Proof(String wire) {
        this.wire = wire;
    }

    /** Whether this proof makes a verdict fresh (every proof but {@link #NONE}). */
    public boolean provesFresh() {
        return this != NONE;
    }

    public String wire() {
        return wire;
    }
}
