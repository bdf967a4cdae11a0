package dev.crifresh.sim.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code rotate --credential USER:PASSWORD}: the platform of a running {@code serve} renders a new registry
 * credential into every node's CRI config (as a machine-config patch would) and {@code serve} rewrites the
 * credential file the coordinator reads; waits until every running agent has attested the new config.
 */
@Command(name = "rotate", mixinStandardHelpOptions = true,
        description = {"Rotates the registry credential of a running 'crifresh-sim serve': the platform renders it"
                + " into every node's CRI config (in place, as Talos applies a machine-config patch), serve rewrites"
                + " credential.json, and this waits until every running agent has attested the new config.",
            "Exit code: 0 done, 1 serve not reachable or the agents did not attest in time, 2 bad input."})
final class RotateCommand implements Callable<Integer> {
    static final Duration ATTEST_TIMEOUT = Duration.ofSeconds(30);

    @Spec
    CommandSpec spec;

    @Option(names = "--credential", paramLabel = "USER:PASSWORD", required = true,
            description = "the new credential (a simulated one: it is sent to serve and written to credential.json)")
    String credential;

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "the kubeconfig serve wrote (default: the first file of $KUBECONFIG)")
    Path kubeconfig;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int colon = credential.indexOf(':');
        if (colon <= 0 || colon == credential.length() - 1) {
            err.println("crifresh-sim: --credential must be USER:PASSWORD, both non-empty");
            return SimMain.USAGE;
        }
        ControlClient control;
        try {
            control = ControlClient.of(kubeconfig);
        } catch (ControlClient.UsageError e) {
            err.println("crifresh-sim: " + e.getMessage());
            return SimMain.USAGE;
        }
        ObjectNode body = JsonMapper.builder().build().createObjectNode();
        body.put("username", credential.substring(0, colon));
        body.put("password", credential.substring(colon + 1));
        ControlClient.Answer answer = control.post("/crifresh-sim/v1/rotate", body.toString());
        if (answer.status() != 202) {
            err.println("crifresh-sim: " + answer.error());
            return answer.status() == 400 ? SimMain.USAGE : SimMain.SIMULATION_FAILED;
        }
        Set<String> waiting = new HashSet<>();
        answer.body().path("attesting").forEach(n -> waiting.add(n.asString()));
        out.printf("the new credential for %s is rendered on %d nodes; waiting for %d agents to attest it%n",
                credential.substring(0, colon), answer.body().path("nodes").asInt(), waiting.size());
        out.flush();
        long deadline = System.nanoTime() + ATTEST_TIMEOUT.toNanos();
        while (true) {
            List<String> pending = new ArrayList<>();
            for (JsonNode node : control.get("/crifresh-sim/v1/nodes").body().path("nodes")) {
                String name = node.path("name").asString();
                if (waiting.contains(name) && !node.path("attestsDesired").asBoolean(false)) {
                    pending.add(name);
                }
            }
            if (pending.isEmpty()) {
                out.println("every running agent attests the new config; its containerd still runs the old one");
                out.flush();
                return 0;
            }
            if (System.nanoTime() > deadline) {
                err.println("crifresh-sim: no attestation of the new config within " + ATTEST_TIMEOUT.toSeconds()
                        + " s from " + String.join(", ", pending));
                return SimMain.SIMULATION_FAILED;
            }
            Thread.sleep(100);
        }
    }
}
