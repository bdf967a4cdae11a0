package dev.crifresh.sim.cli;

import dev.crifresh.common.text.DurationText;
import dev.crifresh.sim.run.AgentTimes;
import dev.crifresh.sim.serve.ServeSettings;
import dev.crifresh.sim.serve.ServeUsageException;
import dev.crifresh.sim.serve.ServedSimulation;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioException;
import dev.crifresh.sim.scenario.ScenarioReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code serve [SCENARIO]}: the simulated cluster stays up for kubectl, the coordinator and Prometheus until Ctrl-C. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Builds the simulated cluster (default: the demo's seven nodes) and keeps it running until"
                + " Ctrl-C, for kubectl, the real coordinator and Prometheus to look at. Writes a kubeconfig, and"
                + " beside it the trust bundle (trust/) and the desired credential (credential.json) the"
                + " coordinator needs; removes them when it stops. One serve per directory: a second one is refused.",
            "Platform events go to stderr. See docs/operations.md, \"Try it locally\"."})
final class ServeCommand implements Callable<Integer> {
    static final String READY = "Serving until Ctrl-C.";

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "SCENARIO", arity = "0..1",
            description = "a scenario file (docs/scenarios.md); default: the built-in demo")
    Path file;

    @Option(names = "--port", paramLabel = "N", defaultValue = "0",
            description = "the API server's port on 127.0.0.1 (default: any free port)")
    int port;

    @Option(names = "--metrics-port", paramLabel = "N", defaultValue = "0",
            description = "the first node's /metrics port on 127.0.0.1, the next node one higher, ... (default: any free ports)")
    int metricsPort;

    @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "crifresh-sim/kubeconfig",
            description = "where to write the kubeconfig; trust/ and credential.json go beside it (default: ${DEFAULT-VALUE})")
    Path kubeconfig;

    @Option(names = "--prometheus-targets", paramLabel = "FILE",
            description = "also write a Prometheus file_sd targets file: one target per node's /metrics, label node")
    Path targets;

    @Option(names = "--agent-heartbeat", paramLabel = "DURATION", defaultValue = "5m",
            description = "each simulated agent re-attests at least this often (the agent's --heartbeat; default: ${DEFAULT-VALUE})")
    Duration agentHeartbeat;

    @Option(names = "--agent-validity", paramLabel = "DURATION", defaultValue = "15m",
            description = "how long each simulated agent's attestation lasts (the agent's --validity; longer than"
                    + " --agent-heartbeat, at most 1h; default: ${DEFAULT-VALUE}). The agents elect an expiry leader,"
                    + " which marks a condition Unknown/AttestationExpired at most 4 s after its exp (see 'hang')")
    Duration agentValidity;

    @Option(names = "--verbose", description = "also show evictions, agent starts and the agents' own log")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        Logs.configure(verbose);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (port < 0 || port > 65535 || metricsPort < 0 || metricsPort > 65535) {
            err.println("crifresh-sim: --port and --metrics-port must be 0..65535");
            return SimMain.USAGE;
        }
        AgentTimes agents;
        try {
            agents = new AgentTimes(agentHeartbeat, agentValidity, true);
        } catch (IllegalArgumentException e) {
            err.println("crifresh-sim: --agent-heartbeat " + DurationText.format(agentHeartbeat) + ", --agent-validity "
                    + DurationText.format(agentValidity) + ": " + e.getMessage());
            return SimMain.USAGE;
        }
        Scenario scenario;
        try {
            scenario = file == null ? DemoCommand.scenario() : ScenarioReader.read(file);
        } catch (ScenarioException e) {
            err.println("crifresh-sim: " + e.getMessage());
            return SimMain.USAGE;
        }
        AtomicBoolean stopping = new AtomicBoolean();
        ServedSimulation served;
        try {
            served = ServedSimulation.start(scenario, new ServeSettings(port, metricsPort, kubeconfig, targets, agents),
                    event -> {
                        // while stopping, the platform's last steps meet a closing API: not news
                        if (!stopping.get() && (verbose || EventText.notable(event))) {
                            err.println("sim: " + EventText.of(event));
                            err.flush();
                        }
                    });
        } catch (ServeUsageException e) {
            err.println("crifresh-sim: " + e.getMessage());
            err.flush();
            return SimMain.USAGE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stopping.set(true);
            err.println("crifresh-sim: stopping: agents, API server; removing " + served.kubeconfig().getParent()
                    + "/{kubeconfig,trust,credential.json}" + (targets == null ? "" : " and " + targets));
            err.flush();
            served.close();
            stopped.countDown();
        }, "crifresh-sim-serve-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        intro(out, scenario, served);
        stopped.await();
        return 0;
    }

    private void intro(PrintWriter out, Scenario scenario, ServedSimulation served) {
        out.printf("crifresh-sim: %d simulated Talos nodes, the real agent on each%n", scenario.nodes().size());
        out.printf("  API server     %s%n", served.apiUrl());
        out.printf("  kubeconfig     %s%n", served.kubeconfig());
        out.printf("  trust bundle   %s%n", served.trustDir());
        out.printf("  credential     %s%n", served.credentialFile());
        StringBuilder ports = new StringBuilder();
        for (Map.Entry<String, Integer> e : served.metricsPorts().entrySet()) {
            ports.append(ports.isEmpty() ? "" : ", ").append(e.getKey()).append(" :").append(e.getValue());
        }
        out.printf("  agent metrics  %s%n", ports);
        if (targets != null) {
            out.printf("  file_sd        %s%n", targets.toAbsolutePath());
        }
        out.printf("%nTry, in another terminal (docs/operations.md, \"Try it locally\"):%n");
        out.printf("  export KUBECONFIG=%s%n", served.kubeconfig());
        out.println("  kubectl get nodes");
        out.println("  kubectl describe node worker-a");
        out.println("  kubectl wait --for=condition=ContainerdConfigFresh node --all --timeout=10m");
        out.printf("  java -jar coordinator/target/crifresh-coordinator.jar rollout --trust-bundle %s"
                + " --credential-file %s --max-unavailable 2 --etcd-check none --api-outage-budget 2m --reboot-driver command --reboot-command '%s reboot {node}'%n",
                served.trustDir(), served.credentialFile(), selfCommand());
        out.printf("  %s rotate --credential deploy-bot:token-v4%n", selfCommand());
        out.println();
        out.println(READY);
        out.flush();
    }

    /** How this program was started: {@code java -jar <its jar>} when it runs from one. */
    static String selfCommand() {
        try {
            Path location = Path.of(ServeCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (location.toString().endsWith(".jar")) {
                return "java -jar " + location;
            }
        } catch (Exception e) {
            // fall through: not from a jar
        }
        return "crifresh-sim";
    }
}
