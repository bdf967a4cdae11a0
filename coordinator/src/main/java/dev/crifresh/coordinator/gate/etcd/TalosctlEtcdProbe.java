package dev.crifresh.coordinator.gate.etcd;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code talosctl [--talosconfig F] -n <ip>,<ip>,… etcd status}, then {@code etcd members} and
 * {@code etcd alarm list} against every control plane, read by {@link EtcdStatusParser}.
 */
public final class TalosctlEtcdProbe implements EtcdProbe {
    private final String talosctl;
    private final Path talosconfig;
    private final CommandRunner runner;

    /** @param talosconfig null = talosctl's own default */
    public TalosctlEtcdProbe(String talosctl, Path talosconfig, CommandRunner runner) {
        this.talosctl = talosctl;
        this.talosconfig = talosconfig;
        this.runner = runner;
    }

    @Override
    public EtcdHealth check(List<ControlPlane> controlPlanes, ControlPlane node) throws Exception {
        if (controlPlanes.isEmpty()) {
            return EtcdHealth.problem("the cluster has no control-plane node to ask about etcd");
        }
        for (ControlPlane cp : controlPlanes) {
            if (cp.ip() == null || cp.ip().isBlank()) {
                return EtcdHealth.problem("control plane " + cp.name() + " has no InternalIP to ask talosctl about etcd");
            }
        }
        String ips = String.join(",", controlPlanes.stream().map(ControlPlane::ip).toList());
        CommandOutput status = runner.run(argv(ips, "etcd", "status"));
        CommandOutput members = runner.run(argv(ips, "etcd", "members"));
        CommandOutput alarms = runner.run(argv(ips, "etcd", "alarm", "list"));
        return EtcdStatusParser.parse(controlPlanes, status, members, alarms);
    }

    public List<String> argv(String ips, String... command) {
        List<String> argv = new ArrayList<>();
        argv.add(talosctl);
        if (talosconfig != null) {
            argv.add("--talosconfig");
            argv.add(talosconfig.toString());
        }
        argv.add("-n");
        argv.add(ips);
        argv.addAll(List.of(command));
        return argv;
    }
}
