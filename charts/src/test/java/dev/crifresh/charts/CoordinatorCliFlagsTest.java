package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.coordinator.cli.CoordinatorMain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;
import tools.jackson.databind.JsonNode;

/** The keys-init hook's and the coordinator Jobs' arguments are parsed by the real coordinator's picocli spec. */
class CoordinatorCliFlagsTest {

    @Test
    void theKeysInitHookParsesAsCoordinatorKeysInit() {
        List<String> args = containerArgs(Chart.render().one("Job", "crifresh-keys-init"));
        ParseResult result = parse(CoordinatorMain::commandLine, args);
        assertEquals(List.of("keys", "init"), commandPath(result), args.toString());
        ParseResult init = result.subcommand().subcommand();
        for (String flag : List.of("--namespace", "--signing-secret", "--trust-secret-name")) {
            assertTrue(init.hasMatchedOption(flag), flag + " in " + args);
        }
    }

    @Test
    void theCoordinatorJobsParseAsRolloutOrPlan() {
        Map<String, Object> command = CoordinatorJobTest.hookJob();
        command.put("coordinator.talosconfig.secretName", "");
        command.put("coordinator.rebootDriver", "command");
        command.put("coordinator.rebootCommand", "ssh root@{ip} reboot");
        Map<String, Object> none = CoordinatorJobTest.hookJob();
        none.put("coordinator.action", "none");
        Map<String, Object> plan = CoordinatorJobTest.hookJob();
        plan.put("coordinator.job.command", "plan");
        Map<String, Object> timeouts = CoordinatorJobTest.hookJob();
        for (String t : List.of("config", "drain", "reboot", "attest", "lock")) {
            timeouts.put("coordinator." + t + "Timeout", "7m");
        }
        timeouts.put("coordinator.markerAnnotation", "example.com/desired-revision");
        timeouts.put("coordinator.markerCurrentValue", "rev-42");
        timeouts.put("coordinator.pushgateway", "http://pushgateway.monitoring:9091");
        timeouts.put("coordinator.logFormat", "json");
        timeouts.put("coordinator.staleTaint", "NoSchedule");

        Map<String, Object> gates = CoordinatorJobTest.hookJob();
        gates.put("coordinator.gates.pullProof.mode", "all");
        gates.put("coordinator.gates.pullProof.image", "ghcr.io/example/probe:1");
        gates.put("coordinator.gates.pullProof.timeout", "90s");
        gates.put("coordinator.gates.etcdCheck", "command");
        gates.put("coordinator.gates.etcdCommand", "check-etcd --nodes {ips}");
        gates.put("coordinator.gates.etcdTimeout", "3m");
        gates.put("coordinator.gates.blockOnAlert", "Node.*|KubePersistentVolumeFillingUp");
        gates.put("coordinator.gates.prometheusUrl", "http://prometheus.monitoring:9090");
        gates.put("coordinator.gates.blockOnPodSelector", "app in (batch,backup)");
        gates.put("coordinator.gates.blockTimeout", "1h");

        List<JsonNode> jobs = List.of(
                Chart.render(CoordinatorJobTest.hookJob()).one("Job", "crifresh-coordinator-rollout"),
                Chart.render("non-default.yaml").one("Job", "crifresh-coordinator-rollout-r1"),
                Chart.render(command).one("Job", "crifresh-coordinator-rollout"),
                Chart.render(none).one("Job", "crifresh-coordinator-rollout"),
                Chart.render(timeouts).one("Job", "crifresh-coordinator-rollout"),
                Chart.render(plan).one("Job", "crifresh-coordinator-plan"),
                Chart.render(gates).one("Job", "crifresh-coordinator-rollout"));
        for (JsonNode job : jobs) {
            List<String> args = containerArgs(job);
            ParseResult result = parse(CoordinatorMain::commandLine, args);
            assertEquals(List.of(args.get(0)), commandPath(result), args.toString());
        }
        assertTrue(containerArgs(jobs.get(4)).contains("--marker-current-value=rev-42"),
                "the marker's current value reaches the CLI unquoted");
        List<String> gateArgs = containerArgs(jobs.get(6));
        for (String arg : List.of("--pull-proof=all", "--pull-proof-image=ghcr.io/example/probe:1", "--pull-proof-namespace=crifresh",
                "--pull-proof-timeout=90s", "--etcd-check=command", "--etcd-command=check-etcd --nodes {ips}", "--etcd-timeout=3m",
                "--block-on-alert=Node.*|KubePersistentVolumeFillingUp", "--prometheus-url=http://prometheus.monitoring:9090",
                "--block-on-pod-selector=app in (batch,backup)", "--block-timeout=1h")) {
            assertTrue(gateArgs.contains(arg), arg + " in " + gateArgs);
        }
        assertTrue(containerArgs(jobs.get(0)).stream().noneMatch(a -> a.startsWith("--pull-proof")
                || a.startsWith("--block") || a.startsWith("--etcd")), "gates off by default");
        assertTrue(containerArgs(jobs.get(4)).containsAll(List.of("--stale-taint=NoSchedule", "--log-format=json")),
                containerArgs(jobs.get(4)).toString());
    }

    @Test
    void theSilenceValuesReachTheRolloutAsTheCliParsesThem() {
        List<String> args = containerArgs(Chart.render(CoordinatorJobTest.hookJob(), "silence.yaml")
                .one("Job", "crifresh-coordinator-rollout"));
        ParseResult rollout = parse(CoordinatorMain::commandLine, args).subcommand();
        assertEquals("http://alertmanager.monitoring:9093", rollout.matchedOptionValue("--silence-alertmanager", ""), args.toString());
        assertEquals(List.of("node=\"{node}\"", "instance=~\"{node}(:.*)?\",severity!=\"info\""),
                rollout.matchedOptionValue("--silence-matcher", List.of()), args.toString());
        assertTrue(containerArgs(Chart.render(CoordinatorJobTest.hookJob()).one("Job", "crifresh-coordinator-rollout"))
                .stream().noneMatch(a -> a.startsWith("--silence")), "no silences by default");
    }

    @Test
    void aFlagTheCliDoesNotKnowWouldFailThisCheck() {
        List<String> args = new ArrayList<>(containerArgs(
                Chart.render(CoordinatorJobTest.hookJob()).one("Job", "crifresh-coordinator-rollout")));
        args.add("--max-unavailble=2");
        assertThrows(CommandLine.ParameterException.class,
                () -> CoordinatorMain.commandLine().parseArgs(args.toArray(String[]::new)));
    }

    private static ParseResult parse(Supplier<CommandLine> cli, List<String> args) {
        return assertDoesNotThrow(() -> cli.get().parseArgs(args.toArray(String[]::new)), args::toString);
    }

    private static List<String> commandPath(ParseResult result) {
        List<String> path = new ArrayList<>();
        for (ParseResult r = result.subcommand(); r != null; r = r.subcommand()) {
            path.add(r.commandSpec().name());
        }
        return path;
    }

    private static List<String> containerArgs(JsonNode workload) {
        return strings(workload.path("spec").path("template").path("spec").path("containers").get(0).path("args"));
    }
}
