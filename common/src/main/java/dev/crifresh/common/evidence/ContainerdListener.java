package dev.crifresh.common.evidence;

/**
 * Whether the CRI containerd the agent timed serves: a listening unix socket bound at containerd's address
 * exists in containerd's network namespace ({@code /proc/<pid>/net/unix}). containerd binds that socket only
 * after it has loaded its config and initialised its plugins (DESIGN, rule 1, "serving"); a containerd that
 * refuses its config exits before it binds, so until it listens its start proves nothing about the files.
 *
 * @param address the address as containerd binds it (its {@code --address}, else its config's, else its default)
 * @param state   what the socket table shows
 * @param detail  why the table could not be read, or what it showed instead; null when listening
 */
public record ContainerdListener(String address, State state, String detail) {

    /** What containerd's socket table shows at its address. */
    public enum State {
        /** A stream socket bound at the address, listening ({@code __SO_ACCEPTCON}, unconnected). */
        LISTENING,
        /** No listening socket at the address: containerd has not finished loading its config, or refused it. */
        NOT_LISTENING,
        /** The table cannot be read, or containerd's address cannot be told. */
        UNREADABLE
    }

    public ContainerdListener {
        if (state == null) {
            throw new IllegalArgumentException("state is required");
        }
    }

    public static ContainerdListener listening(String address) {
        return new ContainerdListener(address, State.LISTENING, null);
    }

    public static ContainerdListener notListening(String address, String detail) {
        return new ContainerdListener(address, State.NOT_LISTENING, detail);
    }

    public static ContainerdListener unreadable(String address, String detail) {
        return new ContainerdListener(address, State.UNREADABLE, detail);
    }

    public boolean isListening() {
        return state == State.LISTENING;
    }
}
