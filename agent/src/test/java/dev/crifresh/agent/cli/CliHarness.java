package dev.crifresh.agent.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the agent's command line in-process and captures exit code, stdout and stderr. */
record CliHarness(int exit, String out, String err) {
    static CliHarness run(String... args) {
        CommandLine cl = AgentMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new CliHarness(code, out.toString(), err.toString());
    }
}
