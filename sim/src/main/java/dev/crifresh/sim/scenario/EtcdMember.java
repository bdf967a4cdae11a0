package dev.crifresh.sim.scenario;

/** A control plane's etcd member as the simulated {@code talosctl etcd status} reports it. */
public enum EtcdMember implements WireValue {
    HEALTHY("healthy"),
    /** The member answers, but reports an error (e.g. it lost its peers); the etcd gate must refuse. */
    UNHEALTHY("unhealthy");

    private final String wire;

    EtcdMember(String wire) {
        this.wire = wire;
    }

    @Override
    public String wire() {
        return wire;
    }
}
