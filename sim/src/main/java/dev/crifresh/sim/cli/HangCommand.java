package dev.crifresh.sim.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * {@code hang NODE}: asks a running {@code serve} to make one node's agent hang, as a process stuck in a
 * deadlock does: it writes nothing more, and the condition it last wrote stays on the Node until the expiry
 * leader (another node's agent) marks it Unknown/AttestationExpired.
 */
@Command(name = "hang", mixinStandardHelpOptions = true,
        description = {"Makes the agent on one node of a running 'crifresh-sim serve' hang: it stops writing (its"
                + " condition and the expiry Lease) as a hung process does, and its last condition stays on the Node."
                + " Within the agents' validity (serve --agent-validity) plus 4 s, another agent marks it"
                + " Unknown/AttestationExpired:",
            "  kubectl wait --for=condition=ContainerdConfigFresh=Unknown node/NODE",
            "Rebooting the node starts a new agent. Exit code: 0 taken, 1 serve not reachable or no agent runs"
                    + " there, 2 unknown node or bad kubeconfig."})
final class HangCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    NodeRequest.Target target;

    @Override
    public Integer call() throws Exception {
        return NodeRequest.send(spec, target, "hang",
                "the agent on " + target.node + " hung; its last condition stays until it expires");
    }
}
