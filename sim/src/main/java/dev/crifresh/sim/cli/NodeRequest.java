package dev.crifresh.sim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * One request about one node to a running {@code serve} ({@code reboot NODE}, {@code hang NODE}): the node's
 * control route, answered 202 when taken. Exit codes: 0 taken, {@link SimMain#USAGE} for a bad kubeconfig, a name
 * that is no node name or an unknown node, {@link SimMain#SIMULATION_FAILED} otherwise.
 */
final class NodeRequest {
    /** The command line both commands take: {@code NODE [--kubeconfig FILE]} (a picocli mixin). */
    static final class Target {
        @Parameters(paramLabel = "NODE", description = "the simulated node's name")
        String node;

        @Option(names = "--kubeconfig", paramLabel = "FILE",
                description = "the kubeconfig serve wrote (default: the first file of $KUBECONFIG)")
        Path kubeconfig;
    }

    private NodeRequest() {
    }

    /** POSTs {@code /crifresh-sim/v1/nodes/<node>/<action>}; prints {@code taken} when serve took it. */
    static int send(CommandSpec spec, Target target, String action, String taken)
            throws IOException, InterruptedException {
        String node = target.node;
        Path kubeconfig = target.kubeconfig;
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ControlClient control;
        try {
            control = ControlClient.of(kubeconfig);
        } catch (ControlClient.UsageError e) {
            err.println("crifresh-sim: " + e.getMessage());
            return SimMain.USAGE;
        }
        if (node.isBlank() || node.contains("/")) {
            err.println("crifresh-sim: not a node name: '" + node + "'");
            return SimMain.USAGE;
        }
        ControlClient.Answer answer = control.post("/crifresh-sim/v1/nodes/" + node + "/" + action, "{}");
        if (answer.status() == 202) {
            out.println(taken);
            out.flush();
            return 0;
        }
        err.println("crifresh-sim: " + answer.error());
        return answer.status() == 404 ? SimMain.USAGE : SimMain.SIMULATION_FAILED;
    }
}
