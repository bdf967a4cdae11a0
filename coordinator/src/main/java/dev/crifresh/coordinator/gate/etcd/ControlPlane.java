package dev.crifresh.coordinator.gate.etcd;

/** A control-plane node as the etcd gate asks talosctl about it. */
public record ControlPlane(String name, String ip) {
    String label() {
        return name + " (" + ip + ")";
    }
}
