package dev.crifresh.coordinator.gate.etcd;

import dev.crifresh.coordinator.driver.CommandTemplate;
import java.util.List;

/**
 * {@code --etcd-check command}: runs {@code --etcd-command} (split like a shell would, run without one;
 * {@code {node}} and {@code {ip}} = the control plane about to be rebooted or just returned, {@code {ips}} =
 * every control plane's InternalIP, comma-separated). Exit 0 = healthy; anything else names the command's
 * last output line.
 */
public final class CommandEtcdProbe implements EtcdProbe {
    private final CommandTemplate template;
    private final CommandRunner runner;

    public CommandEtcdProbe(CommandTemplate template, CommandRunner runner) {
        this.template = template;
        this.runner = runner;
    }

    @Override
    public EtcdHealth check(List<ControlPlane> controlPlanes, ControlPlane node) throws Exception {
        String ips = String.join(",", controlPlanes.stream().map(ControlPlane::ip).toList());
        List<String> argv = template.argv(node.name(), node.ip()).stream().map(w -> w.replace("{ips}", ips)).toList();
        CommandOutput out = runner.run(argv);
        if (out.exitCode() == 0) {
            return EtcdHealth.ok("etcd check command succeeded");
        }
        String last = (out.stderr().isBlank() ? out.stdout() : out.stderr()).strip().lines().reduce((a, b) -> b).orElse("");
        return EtcdHealth.problem("etcd check command exited with " + out.exitCode() + (last.isEmpty() ? "" : ": " + last));
    }
}
