package dev.crifresh.coordinator.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code crifresh-coordinator plan|rollout|keys init}. Exit codes: 0 all fresh (or planned), 1 a node
 * failed, 2 usage or configuration, 3 timed out waiting, 4 rollout lock not acquired or lost.
 */
@Command(name = "crifresh-coordinator", mixinStandardHelpOptions = true, versionProvider = CoordinatorMain.Version.class,
        description = "Proves per node whether containerd loaded the desired registry credential and reboots only the nodes that did not.",
        subcommands = {PlanCommand.class, RolloutCommand.class, KeysCommand.class})
public final class CoordinatorMain implements Callable<Integer> {
    public static final int EXIT_USAGE = 2;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return EXIT_USAGE;
    }

    public static CommandLine commandLine() {
        CommandLine cmd = new CommandLine(new CoordinatorMain());
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
            if (ex instanceof KubernetesClientException k) {
                err.println("crifresh-coordinator: the Kubernetes API failed: " + oneLine(k.getMessage()));
                err.flush();
                return 1;
            }
            err.println("crifresh-coordinator: " + ex.getClass().getSimpleName() + ": " + oneLine(ex.getMessage()));
            err.flush();
            return 1;
        });
        return cmd;
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
            String v = CoordinatorMain.class.getPackage().getImplementationVersion();
            return new String[] {"crifresh-coordinator " + (v == null ? "dev" : v)};
        }
    }
}
