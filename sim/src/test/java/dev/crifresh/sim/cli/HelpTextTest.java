package dev.crifresh.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.cli.AgentMain;
import dev.crifresh.common.cli.CrifreshVersion;
import dev.crifresh.coordinator.cli.CoordinatorMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's help of all three command lines (agent, coordinator, simulator), as a user sees it at the
 * default 80 columns: no word — a file name, a path, a command, a flag — is split across lines, and the text
 * stays within the width. The reference is the same help rendered too wide to wrap at all: every word of the
 * 80-column help must be a word of that one.
 */
class HelpTextTest {
    private static final int WIDE = 2_000;

    private static List<String> commandPaths(CommandLine cmd, List<String> prefix) {
        List<String> paths = new ArrayList<>();
        paths.add(String.join(" ", prefix));
        cmd.getSubcommands().forEach((name, sub) -> {
            List<String> next = new ArrayList<>(prefix);
            next.add(name);
            paths.addAll(commandPaths(sub, next));
        });
        return paths;
    }

    private static String help(Supplier<CommandLine> cli, String path, Integer width) {
        CommandLine cmd = cli.get();
        for (String name : path.isEmpty() ? new String[0] : path.split(" ")) {
            cmd = cmd.getSubcommands().get(name);
        }
        if (width != null) {
            cmd.getCommandSpec().usageMessage().width(width);
        }
        return cmd.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    private static Set<String> words(String text) {
        return Arrays.stream(text.split("\\s+")).filter(w -> !w.isEmpty()).collect(Collectors.toSet());
    }

    @Test
    void noFileNameOrCommandIsSplitAcrossLines() {
        List<Supplier<CommandLine>> clis = List.of(SimMain::commandLine, CoordinatorMain::commandLine, AgentMain::commandLine);
        int checked = 0;
        for (Supplier<CommandLine> cli : clis) {
            for (String path : commandPaths(cli.get(), List.of())) {
                String narrow = help(cli, path, null);
                String name = cli.get().getCommandName() + (path.isEmpty() ? "" : " " + path);
                Set<String> whole = words(help(cli, path, WIDE));
                Set<String> broken = new HashSet<>(words(narrow));
                broken.removeAll(whole);
                assertTrue(broken.isEmpty(), name + " --help splits " + broken + ":\n" + narrow);
                CommandLine command = cli.get();
                for (String part : path.isEmpty() ? new String[0] : path.split(" ")) {
                    command = command.getSubcommands().get(part);
                }
                for (String sub : command.getSubcommands().keySet()) {
                    assertTrue(narrow.contains("\n  " + sub + " "), name + " --help does not list " + sub + ":\n" + narrow);
                }
                for (String line : narrow.lines().toList()) {
                    assertTrue(line.length() <= 80, name + " --help has a line over 80 columns: " + line);
                }
                checked++;
            }
        }
        assertTrue(checked >= 10, "rendered " + checked + " commands");
        // the two that used to break
        assertTrue(help(SimMain::commandLine, "reboot", null).contains("'java -jar sim/target/crifresh-sim.jar reboot {node}'"));
        assertTrue(help(SimMain::commandLine, "serve", null).contains("credential.json"));
    }

    @Test
    void everyCommandLinePrintsTheProjectVersion() {
        String version = CrifreshVersion.current();
        assertTrue(version.matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), version);
        List<Supplier<CommandLine>> clis = List.of(SimMain::commandLine, CoordinatorMain::commandLine, AgentMain::commandLine);
        List<String> names = List.of("crifresh-sim", "crifresh-coordinator", "crifresh-agent");
        for (int i = 0; i < clis.size(); i++) {
            CommandLine cmd = clis.get(i).get();
            StringWriter out = new StringWriter();
            cmd.setOut(new PrintWriter(out, true));
            assertEquals(0, cmd.execute("--version"));
            assertEquals(names.get(i) + " " + version + "\n", out.toString());
        }
    }
}
