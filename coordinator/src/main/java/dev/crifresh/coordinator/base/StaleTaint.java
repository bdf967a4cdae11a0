package dev.crifresh.coordinator.base;

/**
 * The taint crifresh puts on every stale node it is going to reboot, before the first drain, so that pods
 * evicted from one stale node do not land on another whose containerd may no longer pull their images
 * (an old credential already revoked). Key {@value #KEY}, value the run id.
 */
public enum StaleTaint {
    /** The scheduler avoids the node when it can (the default: never leaves pods Pending). */
    PREFER_NO_SCHEDULE("PreferNoSchedule"),
    /** The scheduler never places new pods there; pods without a fresh node stay Pending until one returns. */
    NO_SCHEDULE("NoSchedule"),
    /** No taint, no seed node: evicted pods land wherever the scheduler puts them. */
    OFF("off");

    public static final String KEY = "crifresh.dev/stale";

    private final String wire;

    StaleTaint(String wire) {
        this.wire = wire;
    }

    /** The flag value, and for a taint its {@code effect}. */
    public String wire() {
        return wire;
    }

    public boolean enabled() {
        return this != OFF;
    }

    public static StaleTaint fromWire(String value) {
        for (StaleTaint t : values()) {
            if (t.wire.equals(value)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown stale taint '" + value + "' (expected PreferNoSchedule, NoSchedule or off)");
    }
}
