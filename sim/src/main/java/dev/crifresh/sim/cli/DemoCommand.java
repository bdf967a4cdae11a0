package dev.crifresh.sim.cli;

import dev.crifresh.coordinator.report.Report;
import dev.crifresh.sim.run.SimulationRun;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code demo}: the built-in scenario told as a story. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Runs a built-in 7-node scenario and tells it as a story: the plan with the marker beside"
                + " the evidence, the rollout, and which reboots were avoided and why.")
final class DemoCommand implements Callable<Integer> {
    static final String SCENARIO = "demo.yaml";

    @Spec
    CommandSpec spec;

    @Option(names = "--verbose", description = "also show the agents' own log")
    boolean verbose;

    static Scenario scenario() throws Exception {
        try (InputStream in = DemoCommand.class.getResourceAsStream(SCENARIO)) {
            if (in == null) {
                throw new IOException("the demo scenario is missing from the jar");
            }
            return ScenarioReader.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Override
    public Integer call() throws Exception {
        Logs.configure(verbose);
        Instant start = Instant.now();
        PrintWriter out = spec.commandLine().getOut();
        Scenario scenario = scenario();
        DemoStory story = new DemoStory(scenario, out);
        story.intro();
        try (SimulationRun run = SimulationRun.prepare(scenario, event -> { })) {
            story.plan(run.plan(line -> { }));
            run.cluster().onEvent(story::event);
            Report report = run.rollout(story::progress);
            story.summary(report, Duration.between(start, Instant.now()));
            return report.exitCode();
        }
    }
}
