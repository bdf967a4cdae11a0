package dev.crifresh.sim.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * {@code reboot NODE}: asks a running {@code serve} to reboot one simulated node and returns once the request
 * was taken, as {@code talosctl reboot --wait=false} does: the coordinator's {@code command} reboot driver.
 */
@Command(name = "reboot", mixinStandardHelpOptions = true,
        description = {"Asks a running 'crifresh-sim serve' to reboot one simulated node; returns once the request"
                + " was taken (like talosctl reboot --wait=false). For the coordinator's --reboot-driver command:",
            "  --reboot-command 'java -jar sim/target/crifresh-sim.jar reboot {node}'",
            "Exit code: 0 taken, 1 serve not reachable, 2 unknown node or bad kubeconfig."})
final class RebootCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    NodeRequest.Target target;

    @Override
    public Integer call() throws Exception {
        return NodeRequest.send(spec, target, "reboot",
                "reboot of " + target.node + " requested");
    }
}
