package dev.crifresh.coordinator.cli;

import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.common.cli.HelpText;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code crifresh-coordinator plan|rollout|keys init}. Exit codes: 0 all fresh (or planned), 1 a node
 * failed, 2 usage or configuration (an unknown context, TLS failure, 401, 403 included), 3 timed out waiting, 4 rollout
 * lock held by another run or lost, 5 the API server could not be reached within {@code --connect-timeout}, 6 no
 * selected node carries a verifiable attestation of its current boot ({@code --allow-no-attestations}).
 */
@Command(name = "crifresh-coordinator", mixinStandardHelpOptions = true, versionProvider = CoordinatorMain.Version.class,
        description = "Proves per node whether containerd loaded the desired registry credential and reboots only the nodes that did not.",
        subcommands = {PlanCommand.class, RolloutCommand.class, KeysCommand.class})
public final class CoordinatorMain implements Callable<Integer> {
    public static final int EXIT_USAGE = 2;
    /** The API server could not be reached within {@code --connect-timeout}. */
    public static final int EXIT_UNREACHABLE = 5;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_USAGE;
    }

    public static CommandLine commandLine() {
        CommandLine cmd = HelpText.install(new CommandLine(new CoordinatorMain()));
        cmd.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            String message = ex.getMessage() == null ? "bad arguments" : ex.getMessage().replaceFirst("^Error: ", "");
            err.println("crifresh-coordinator: " + message + " (see --help)");
            err.flush();
            return EXIT_USAGE;
        });
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            if (ex instanceof UsageException) {
                err.println("crifresh-coordinator: " + ex.getMessage());
                err.flush();
                return EXIT_USAGE;
            }
            if (ex instanceof ApiUnreachableException) {
                err.println("crifresh-coordinator: " + ex.getMessage());
                err.flush();
                return EXIT_UNREACHABLE;
            }
            if (ex instanceof KubernetesClientException k) {
                ApiProblem problem = ApiProblem.of(k);
                err.println("crifresh-coordinator: the Kubernetes API failed: " + (problem.kind() == ApiProblem.Kind.OTHER
                        ? oneLine(k.getMessage()) : problem.detail() + " (" + oneLine(k.getMessage()) + ")"));
                err.flush();
                return 1;
            }
            err.println("crifresh-coordinator: " + ex.getClass().getSimpleName() + ": " + oneLine(ex.getMessage()));
            err.flush();
            return 1;
        });
        return cmd;
    }

    /**
     * Parses {@code args} as {@link #main} does and runs the command's own usage checks, without connecting anywhere:
     * null when the command line is accepted, else the message it would exit 2 with. For tests of the documented
     * command lines (the sim module's DocsCommandsTest).
     */
    public static String usageError(String... args) {
        try {
            CommandLine.ParseResult result = commandLine().parseArgs(args);
            while (result.hasSubcommand()) {
                result = result.subcommand();
            }
            if (!result.isUsageHelpRequested() && !result.isVersionHelpRequested()
                    && result.commandSpec().userObject() instanceof UsageChecked checked) {
                checked.checkUsage();
            }
            return null;
        } catch (CommandLine.ParameterException | UsageException e) {
            return e.getMessage();
        }
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "(no message)";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"crifresh-coordinator " + CrifreshVersion.current()};
        }
    }
}
