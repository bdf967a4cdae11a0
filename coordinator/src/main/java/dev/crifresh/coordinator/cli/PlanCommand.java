package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.base.Action;
import dev.crifresh.coordinator.Coordinator;
import dev.crifresh.coordinator.CoordinatorOptions;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.report.Report;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "plan", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        description = {"Classify every node (fresh, stale, config-pending, unknown) and show the order a rollout would follow.",
            "Reads only; changes nothing. Exit 0, 2 for bad input (also an unknown context, TLS failure, 401 or 403), 5 API server unreachable, 6 no selected node attests its boot (--allow-no-attestations)."})
public final class PlanCommand implements Callable<Integer>, UsageChecked {
    @Spec
    CommandSpec spec;

    @Mixin
    ReportOptions options;

    @Mixin
    GateOptions gateOptions;

    @Option(names = "--action", paramLabel = "reboot|none|auto", defaultValue = "reboot",
            converter = RolloutCommand.ActionConverter.class,
            description = "The action of the rollout to plan; auto shows per node whether it would be rebooted or waited for "
                    + "(default: ${DEFAULT-VALUE}).")
    Action action;

    /** The usage checks {@link #call} runs before it connects; throws {@link UsageException}. */
    @Override
    public void checkUsage() {
        Settings.of(options, b -> b.action(action));
        gateOptions.wiring();
    }

    @Override
    public Integer call() throws Exception {
        CoordinatorSettings settings = Settings.of(options, b -> b.action(action));
        var gates = gateOptions.wiring();
        try (Session session = Session.open(options, spec, settings, ApiPreflight.plan())) {
            Coordinator coordinator = session.coordinator(settings, node -> {
                throw new IllegalStateException("plan never reboots");
            }, CoordinatorOptions.gates(gates));
            Report report = Session.await(coordinator.plan()).withCluster(session.target.ref());
            options.write("plan", report, spec.commandLine().getOut(), spec.commandLine().getErr());
            return report.exitCode();
        }
    }
}
