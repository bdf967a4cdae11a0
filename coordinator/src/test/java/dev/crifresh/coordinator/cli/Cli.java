package dev.crifresh.coordinator.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the real command line in-process and captures stdout and stderr. */
record Cli(int exit, String out, String err) {
    static Cli run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = CoordinatorMain.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int exit = cmd.execute(args);
        return new Cli(exit, out.toString(), err.toString());
    }

    /** Lines on stderr that are not progress lines. */
    long errorLines() {
        return err.lines().filter(l -> l.startsWith("crifresh-coordinator:")).count();
    }
}
