package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.cli.AgentMain;
import dev.crifresh.coordinator.cli.CoordinatorMain;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every value an enum-valued flag of the CLI accepts, the chart's values.schema.json accepts for the value the chart
 * passes through to that flag, and the rendered argument reaches the CLI as that same value. The accepted values come
 * from the CLI itself: its Java enum's constants (their {@code wire()} form where they have one) and its
 * {@code a|b|c} parameter label, each confirmed by the CLI's own parsing and usage checks.
 */
class CliEnumValuesTest {

    /** Where the chart renders the workload whose arguments carry a flag. */
    enum Workload {
        AGENT("DaemonSet", "crifresh-agent", AgentMain::commandLine),
        ROLLOUT("Job", "crifresh-coordinator-rollout", CoordinatorMain::commandLine),
        PLAN("Job", "crifresh-coordinator-plan", CoordinatorMain::commandLine);

        final String kind;
        final String name;
        final Supplier<CommandLine> cli;

        Workload(String kind, String name, Supplier<CommandLine> cli) {
            this.kind = kind;
            this.name = name;
            this.cli = cli;
        }

        Map<String, Object> base() {
            Map<String, Object> sets = this == AGENT ? new HashMap<>() : CoordinatorJobTest.hookJob();
            if (this == PLAN) {
                sets.put("coordinator.job.command", "plan");
            }
            return sets;
        }

        List<String> args(Rendered render) {
            JsonNode workload = render.one(kind, name);
            return strings(workload.path("spec").path("template").path("spec").path("containers").get(0).path("args"));
        }
    }

    /** A chart value passed through to an enum-valued flag. */
    record Passed(String key, Workload workload, String flag) {
        /** The other values the CLI needs beside {@code value} (e.g. the command a command driver runs). */
        Map<String, Object> sets(String value) {
            Map<String, Object> sets = workload.base();
            sets.put(key, value);
            if (key.endsWith("rebootDriver") && value.equals("command")) {
                sets.put("coordinator.rebootCommand", "ssh root@{ip} reboot");
            }
            if (key.endsWith("pullProof.mode") && !value.equals("off")) {
                sets.put("coordinator.gates.pullProof.image", "ghcr.io/example/probe:1");
            }
            if (key.endsWith("etcdCheck") && value.equals("command")) {
                sets.put("coordinator.gates.etcdCommand", "check-etcd {ips}");
            }
            return sets;
        }
    }

    static final List<Passed> PASSED = List.of(
            new Passed("agent.mode", Workload.AGENT, "--mode"),
            new Passed("agent.containerdGeneration", Workload.AGENT, "--containerd-generation"),
            new Passed("coordinator.action", Workload.ROLLOUT, "--action"),
            new Passed("coordinator.action", Workload.PLAN, "--action"),
            new Passed("coordinator.rebootDriver", Workload.ROLLOUT, "--reboot-driver"),
            new Passed("coordinator.output", Workload.ROLLOUT, "--output"),
            new Passed("coordinator.output", Workload.PLAN, "--output"),
            new Passed("coordinator.staleTaint", Workload.ROLLOUT, "--stale-taint"),
            new Passed("coordinator.staleTaint", Workload.PLAN, "--stale-taint"),
            new Passed("coordinator.logFormat", Workload.ROLLOUT, "--log-format"),
            new Passed("coordinator.gates.pullProof.mode", Workload.ROLLOUT, "--pull-proof"),
            new Passed("coordinator.gates.etcdCheck", Workload.ROLLOUT, "--etcd-check"));

    /** Labels with a {@code |} that are not a list of values. */
    static final Set<String> NOT_ENUMS = Set.of("--max-unavailable"); // N|P%: a count or a percentage

    @Test
    void everyValueTheCliAcceptsTheSchemaAcceptsAndTheCliReceives() {
        for (Passed passed : PASSED) {
            for (String value : accepted(passed)) {
                Rendered render = assertDoesNotThrow(() -> Chart.render(passed.sets(value)),
                        () -> "the schema must accept " + passed.key() + ": " + value + " (the CLI's " + passed.flag() + " does)");
                List<String> args = passed.workload().args(render);
                assertNull(usageError(passed.workload(), args), () -> passed.key() + "=" + value + " → " + args);
                OptionSpec rendered = option(passed.workload(), args, passed.flag());
                assertEquals(convert(rendered, value), rendered.getValue(),
                        () -> passed.key() + "=" + value + " reaches " + passed.flag() + " as the CLI reads it: " + args);
            }
        }
    }

    @Test
    void everyValueTheSchemaListsTheCliAccepts() throws IOException {
        JsonNode schema = JsonMapper.builder().build().readTree(Files.readString(Chart.SOURCE.resolve("values.schema.json")));
        for (Passed passed : PASSED) {
            JsonNode node = schema;
            for (String part : passed.key().split("\\.")) {
                node = node.path("properties").path(part);
            }
            assertTrue(node.path("enum").isArray(), passed.key() + " is an enum in the schema");
            Set<String> accepted = accepted(passed);
            for (JsonNode value : node.path("enum")) {
                // "" leaves the flag out: the CLI's default
                if (!value.asString().isEmpty()) {
                    assertTrue(accepted.contains(value.asString()), passed.key() + ": schema value " + value
                            + " is not one the CLI's " + passed.flag() + " accepts " + accepted);
                }
            }
        }
    }

    /** The table above is complete: every enum-valued flag the chart renders is in it. */
    @Test
    void everyEnumValuedFlagTheChartPassesIsChecked() {
        Map<String, Object> rollout = new HashMap<>();
        rollout.putAll(new Passed("coordinator.gates.etcdCheck", Workload.ROLLOUT, "--etcd-check").sets("command"));
        rollout.putAll(new Passed("coordinator.rebootDriver", Workload.ROLLOUT, "--reboot-driver").sets("command"));
        rollout.putAll(new Passed("coordinator.gates.pullProof.mode", Workload.ROLLOUT, "--pull-proof").sets("all"));
        rollout.put("coordinator.talosconfig.secretName", "");
        rollout.put("coordinator.staleTaint", "NoSchedule");
        rollout.put("coordinator.logFormat", "json");
        rollout.put("coordinator.pushgateway", "http://pushgateway:9091");
        rollout.put("coordinator.gates.blockOnAlert", "Node.*");
        rollout.put("coordinator.gates.prometheusUrl", "http://prometheus:9090");
        Map<Workload, Rendered> renders = Map.of(
                Workload.AGENT, Chart.render(Map.of("agent.containerdGeneration", "2.2", "agent.mode", "generic",
                        "agent.criSocket", "/run/containerd/containerd.sock"), "agent-custom.yaml"),
                Workload.ROLLOUT, Chart.render(rollout),
                Workload.PLAN, Chart.render(Workload.PLAN.base()));
        List<String> missing = new ArrayList<>();
        renders.forEach((workload, render) -> {
            List<String> args = workload.args(render);
            ParseResult command = leaf(workload.cli.get().parseArgs(args.toArray(String[]::new)));
            for (OptionSpec option : command.matchedOptions()) {
                boolean enumValued = (option.type().isEnum() || option.paramLabel().contains("|"))
                        && !NOT_ENUMS.contains(option.longestName());
                boolean listed = PASSED.stream().anyMatch(p -> p.workload() == workload && option.longestName().equals(p.flag()));
                if (enumValued && !listed) {
                    missing.add(workload + " " + option.longestName());
                }
            }
        });
        assertTrue(missing.isEmpty(), "enum-valued flags the chart passes without a check here: " + missing);
    }

    /** The check can fail: a value the CLI rejects is not taken for accepted. */
    @Test
    void aValueTheCliRejectsIsNotAccepted() {
        Passed action = PASSED.get(2);
        List<String> args = new ArrayList<>(Workload.ROLLOUT.args(Chart.render(action.sets("reboot"))));
        args.replaceAll(a -> a.equals("--action=reboot") ? "--action=sometimes" : a);
        assertNotNull(usageError(Workload.ROLLOUT, args));
        assertFalse(accepted(action).contains("sometimes"));
        assertTrue(accepted(action).containsAll(List.of("reboot", "none", "auto")), accepted(action).toString());
    }

    /**
     * The values the CLI accepts for a flag: its enum's constants (their {@code wire()} form where they have one)
     * and its {@code a|b|c} label, each confirmed by the CLI's parse and usage checks on the chart's own arguments.
     */
    private static Set<String> accepted(Passed passed) {
        OptionSpec option = passed.workload().cli.get().getCommandSpec()
                .subcommands().get(subcommand(passed.workload())).getCommandSpec().findOption(passed.flag());
        assertNotNull(option, passed.flag());
        Set<String> values = new LinkedHashSet<>();
        if (option.paramLabel().contains("|")) {
            values.addAll(List.of(option.paramLabel().split("\\|")));
        }
        if (option.type().isEnum()) {
            for (Object constant : option.type().getEnumConstants()) {
                values.add(wire(constant));
            }
        }
        assertFalse(values.isEmpty(), passed.flag() + " is not enum-valued");
        List<String> base = passed.workload().args(Chart.render(passed.workload().base()));
        for (String value : values) {
            List<String> args = withFlag(base, passed, value);
            assertNull(usageError(passed.workload(), args), () -> passed.flag() + " " + value + " in " + args);
        }
        return values;
    }

    private static String subcommand(Workload workload) {
        return switch (workload) {
            case AGENT -> "run";
            case ROLLOUT -> "rollout";
            case PLAN -> "plan";
        };
    }

    /** {@code base} with {@code flag=value} instead of the chart's own, plus what the value needs. */
    private static List<String> withFlag(List<String> base, Passed passed, String value) {
        List<String> args = new ArrayList<>();
        OptionSpec option = option(passed.workload(), base, passed.flag());
        for (int i = 0; i < base.size(); i++) {
            String arg = base.get(i);
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (List.of(option.names()).contains(name)) {
                if (!arg.contains("=")) {
                    i++;
                }
                continue;
            }
            args.add(arg);
        }
        args.add(passed.flag() + "=" + value);
        if (passed.flag().equals("--reboot-driver") && value.equals("command")) {
            args.add("--reboot-command=ssh root@{ip} reboot");
        }
        if (passed.flag().equals("--pull-proof") && !value.equals("off")) {
            args.add("--pull-proof-image=ghcr.io/example/probe:1");
        }
        if (passed.flag().equals("--etcd-check") && value.equals("command")) {
            args.add("--etcd-command=check-etcd {ips}");
        }
        return args;
    }

    private static String wire(Object constant) {
        try {
            Method wire = constant.getClass().getMethod("wire");
            return (String) wire.invoke(constant);
        } catch (NoSuchMethodException e) {
            return ((Enum<?>) constant).name();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** null when the CLI accepts {@code args}, else its usage error. */
    private static String usageError(Workload workload, List<String> args) {
        if (workload == Workload.AGENT) {
            try {
                AgentMain.commandLine().parseArgs(args.toArray(String[]::new));
                return null;
            } catch (CommandLine.ParameterException e) {
                return e.getMessage();
            }
        }
        return CoordinatorMain.usageError(args.toArray(String[]::new));
    }

    /** The option after the CLI parsed {@code args}: its value is what the command runs with. */
    private static OptionSpec option(Workload workload, List<String> args, String flag) {
        ParseResult result = leaf(workload.cli.get().parseArgs(args.toArray(String[]::new)));
        return result.commandSpec().findOption(flag);
    }

    private static Object convert(OptionSpec option, String value) {
        try {
            if (option.converters() != null && option.converters().length > 0) {
                return option.converters()[0].convert(value);
            }
            if (option.type().isEnum()) {
                for (Object constant : option.type().getEnumConstants()) {
                    if (wire(constant).equals(value)) {
                        return constant;
                    }
                }
            }
            return value;
        } catch (Exception e) {
            throw new IllegalStateException(option.longestName() + " " + value, e);
        }
    }

    private static ParseResult leaf(ParseResult result) {
        ParseResult r = result;
        while (r.hasSubcommand()) {
            r = r.subcommand();
        }
        return r;
    }
}
