package dev.crifresh.sim.cli;

import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.TextReport;
import dev.crifresh.sim.run.SimulationRun;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioException;
import dev.crifresh.sim.scenario.ScenarioReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code scenario FILE [--plan] [-o text|json]}: the exit code is the coordinator's. */
@Command(name = "scenario", mixinStandardHelpOptions = true,
        description = {"Builds the simulated cluster a scenario file describes and runs the real coordinator"
                + " against it: rollout, or with --plan only the classification.",
            "The report goes to stdout, progress to stderr. Exit code: the coordinator's (0 succeeded, 1 a node"
                + " failed, 3 timed out); 2 for a bad file."})
final class ScenarioCommand implements Callable<Integer> {
    enum Format { TEXT, JSON }

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "the scenario (YAML, see docs/scenarios.md)")
    Path file;

    @Option(names = "--plan", description = "classify only; reboot nothing")
    boolean plan;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "text",
            description = "report format: text or json (default: ${DEFAULT-VALUE})")
    Format output;

    @Option(names = "--verbose", description = "also show evictions, agent starts and the agents' own log")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        Logs.configure(verbose);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Scenario scenario;
        try {
            scenario = ScenarioReader.read(file);
        } catch (ScenarioException e) {
            err.println("crifresh-sim: " + e.getMessage());
            return SimMain.USAGE;
        }
        try (SimulationRun run = SimulationRun.prepare(scenario, event -> {
            if (verbose || EventText.notable(event)) {
                err.println("sim: " + EventText.of(event));
            }
        })) {
            Report report = plan ? run.plan(err::println) : run.rollout(err::println);
            out.print(output == Format.JSON ? report.toJson() : TextReport.render(report));
            out.flush();
            return report.exitCode();
        }
    }
}
