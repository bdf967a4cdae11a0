package dev.crifresh.agent.cli;

import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.common.cli.HelpText;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code crifresh-agent run|observe}. */
@Command(name = "crifresh-agent", mixinStandardHelpOptions = true,
        versionProvider = AgentMain.Version.class,
        subcommands = {RunCommand.class, ObserveCommand.class},
        description = "Proves whether the node's running CRI containerd loaded its current config, and"
                + " publishes that as the signed ContainerdConfigFresh Node condition.")
public final class AgentMain implements Runnable {
    /** Exit code for usage and configuration errors (a bad flag, an unreadable key file). */
    public static final int USAGE = 2;

    @Spec
    CommandSpec spec;

    /** The agent's command line: subcommands, the duration converter and one-line error handling. */
    public static CommandLine commandLine() {
        CommandLine cl = HelpText.install(new CommandLine(new AgentMain()));
        cl.registerConverter(Duration.class, new DurationConverter());
        cl.setParameterExceptionHandler(AgentMain::usageError);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("crifresh-agent: " + describe(e));
            return 1;
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: run or observe (see --help)");
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        String message = e.getMessage() == null ? "invalid arguments" : e.getMessage().replace('\n', ' ').trim();
        err.println("crifresh-agent: " + message);
        err.flush();
        return USAGE;
    }

    /** An unexpected failure in one line: the message and, when different, the root cause. */
    static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        if (root == e) {
            return top;
        }
        return top + " (" + root.getClass().getName() + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")";
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"crifresh-agent " + CrifreshVersion.current()};
        }
    }
}
