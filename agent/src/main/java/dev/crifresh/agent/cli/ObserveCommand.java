package dev.crifresh.agent.cli;

import dev.crifresh.agent.cri.CriStatusClient;
import dev.crifresh.agent.cri.RuntimeAuthProbe;
import dev.crifresh.agent.introspect.IntrospectionCheck;
import dev.crifresh.agent.introspect.IntrospectionClient;
import dev.crifresh.agent.host.HostClock;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.agent.loop.Evaluator;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Evaluates once and prints the evidence as one JSON object: the operator's debugging tool
 * ({@code kubectl exec ds/crifresh-agent -- ... observe}). No API access, no signing key; it prints
 * registry fingerprints (HMACs), never a credential.
 */
@Command(name = "observe", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        description = "Evaluate once and print the evidence and verdict as JSON (no API access).")
final class ObserveCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    HostOptions host;

    @Override
    public Integer call() {
        host.requireDirectories(spec);
        byte[] fingerprintKey = host.fingerprintKeyBytes(spec);
        HostReader reader = new HostReader(host.procRoot, host.hostRoot, host.watchGlobs(spec), host.matcher(spec),
                HostClock.system(host.procRoot), host.mounts(spec));
        Assessment assessment;
        if (host.criSocket == null && !host.containerdIntrospection) {
            assessment = new Evaluator(reader, host.rules(spec), fingerprintKey, host.generation()).evaluate();
        } else {
            Vertx vertx = Vertx.vertx();
            RuntimeAuthProbe probe = host.criSocket == null ? null
                    : new RuntimeAuthProbe(new CriStatusClient(vertx, host.criSocket, Duration.ofSeconds(5)));
            IntrospectionCheck introspection = !host.containerdIntrospection ? null : new IntrospectionCheck(
                    new IntrospectionClient(vertx, IntrospectionClient.DEFAULT_DEADLINE), host.hostRoot);
            try {
                assessment = new Evaluator(reader, host.rules(spec), fingerprintKey, host.generation(), probe,
                        introspection).evaluate();
            } finally {
                if (probe != null) {
                    probe.close();
                }
                if (introspection != null) {
                    introspection.close();
                }
                vertx.close();
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(ObservationJson.render(assessment, fingerprintKey != null));
        out.flush();
        return 0;
    }
}
