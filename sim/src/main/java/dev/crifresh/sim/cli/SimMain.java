package dev.crifresh.sim.cli;

import dev.crifresh.agent.cli.DurationConverter;
import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.common.cli.HelpText;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code crifresh-sim scenario FILE | demo}: a simulated Talos cluster with real agents and the real coordinator. */
@Command(name = "crifresh-sim", mixinStandardHelpOptions = true,
        versionProvider = SimMain.Version.class,
        subcommands = {ScenarioCommand.class, DemoCommand.class, ServeCommand.class, RebootCommand.class,
            RotateCommand.class, HangCommand.class},
        description = "Runs the real crifresh agents and coordinator against a simulated Talos cluster.")
public final class SimMain implements Runnable {
    /** Bad flags or a bad scenario file. */
    public static final int USAGE = 2;
    /** The simulation itself could not run (not a coordinator result). */
    public static final int SIMULATION_FAILED = 1;

    @Spec
    CommandSpec spec;

    /** The simulator's command line: subcommands and one-line error handling. */
    public static CommandLine commandLine() {
        CommandLine cl = HelpText.install(new CommandLine(new SimMain()));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(Duration.class, new DurationConverter());
        cl.setParameterExceptionHandler(SimMain::usageError);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("crifresh-sim: the simulation failed: "
                    + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return SIMULATION_FAILED;
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: scenario, demo, serve, reboot or rotate (see --help)");
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        String message = e.getMessage() == null ? "invalid arguments" : e.getMessage().replace('\n', ' ').trim();
        err.println("crifresh-sim: " + message);
        err.flush();
        return USAGE;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"crifresh-sim " + CrifreshVersion.current()};
        }
    }
}
