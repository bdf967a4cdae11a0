package dev.crifresh.charts;

import static dev.crifresh.charts.Rendered.strings;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.agent.cli.AgentMain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;
import tools.jackson.databind.JsonNode;

/** The DaemonSet's arguments are parsed by the real agent's picocli spec (names, arity, types). */
class AgentCliFlagsTest {

    @Test
    void theDaemonSetsArgumentsParseAsAgentRun() {
        for (Rendered render : List.of(Chart.render(), Chart.render("agent-custom.yaml"),
                Chart.render(Map.of("agent.mode", "generic", "agent.margin", "250ms", "agent.procPoll", "2s")),
                Chart.render(Map.of("agent.criSocket", "/run/containerd/containerd.sock")),
                Chart.render(Map.of("agent.containerdIntrospection", "true")),
                Chart.render(Map.of("agent.expiry.enabled", "false")))) {
            List<String> args = containerArgs(render.one("DaemonSet"));
            ParseResult run = parse(AgentMain::commandLine, args).subcommand();
            assertEquals("run", run.commandSpec().name(), args.toString());
            for (String arg : args.subList(1, args.size())) {
                String name = arg.substring(0, arg.indexOf('='));
                assertTrue(run.hasMatchedOption(name), name + " matched in " + args);
            }
        }
    }

    @Test
    void theAgentsCompeteForTheExpiryLeaseByDefaultNamedByTheirPod() {
        JsonNode on = Chart.render(Map.of("agent.expiry.period", "10s", "agent.expiry.leaseDuration", "30s")).one("DaemonSet");
        List<String> args = containerArgs(on);
        assertTrue(args.containsAll(List.of("--expiry-lease=crifresh/crifresh-agent-expiry", "--expiry-period=10s",
                "--expiry-lease-duration=30s", "--pod-name=$(POD_NAME)")), args::toString);
        JsonNode env = on.path("spec").path("template").path("spec").path("containers").get(0).path("env");
        boolean podName = false;
        for (JsonNode e : env) {
            podName |= "POD_NAME".equals(e.path("name").asString())
                    && "metadata.name".equals(e.path("valueFrom").path("fieldRef").path("fieldPath").asString());
        }
        assertTrue(podName, env::toString);
        List<String> off = containerArgs(Chart.render(Map.of("agent.expiry.enabled", "false")).one("DaemonSet"));
        assertTrue(off.stream().noneMatch(a -> a.startsWith("--expiry") || a.startsWith("--pod-name")), off::toString);
    }

    @Test
    void theCriSocketIsOffByDefaultAndMountedReadOnlyWhenAskedFor() {
        JsonNode off = Chart.render().one("DaemonSet");
        assertTrue(containerArgs(off).stream().noneMatch(a -> a.startsWith("--cri-socket")), containerArgs(off)::toString);
        assertTrue(off.toString().indexOf("cri-socket") < 0, "no CRI socket volume by default");

        JsonNode on = Chart.render(Map.of("agent.criSocket", "/run/containerd/containerd.sock")).one("DaemonSet");
        assertTrue(containerArgs(on).contains("--cri-socket=/host/run/containerd/containerd.sock"), containerArgs(on)::toString);
        JsonNode pod = on.path("spec").path("template").path("spec");
        JsonNode volume = null;
        for (JsonNode v : pod.path("volumes")) {
            if ("cri-socket".equals(v.path("name").asString())) {
                volume = v;
            }
        }
        assertEquals("/run/containerd/containerd.sock", volume.path("hostPath").path("path").asString());
        JsonNode mount = null;
        for (JsonNode m : pod.path("containers").get(0).path("volumeMounts")) {
            if ("cri-socket".equals(m.path("name").asString())) {
                mount = m;
            }
        }
        assertEquals("/host/run/containerd/containerd.sock", mount.path("mountPath").asString());
        assertTrue(mount.path("readOnly").asBoolean());
    }

    @Test
    void theIntrospectionCheckIsOffByDefaultAndUsesTheWitnesssMount() {
        List<String> off = containerArgs(Chart.render().one("DaemonSet"));
        assertTrue(off.stream().noneMatch(a -> a.startsWith("--containerd-introspection")), off::toString);

        Rendered render = Chart.render(Map.of("agent.containerdIntrospection", "true"));
        List<String> on = containerArgs(render.one("DaemonSet"));
        assertTrue(on.contains("--containerd-introspection=true"), on::toString);
        ParseResult run = parse(AgentMain::commandLine, on).subcommand();
        assertEquals(Boolean.TRUE, run.matchedOptionValue("--containerd-introspection", Boolean.FALSE));
        // no mount of its own: the socket directory the clock witness mounts read-only
        assertEquals(Chart.render().one("DaemonSet").path("spec").path("template").path("spec").path("volumes"),
                render.one("DaemonSet").path("spec").path("template").path("spec").path("volumes"));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chart.render(Map.of(
                "agent.containerdIntrospection", "true", "agent.containerdSocketHostPath", "")));
        assertTrue(e.getMessage().contains("agent.containerdIntrospection needs agent.containerdSocketHostPath"),
                e.getMessage());
    }

    @Test
    void aFlagTheCliDoesNotKnowWouldFailThisCheck() {
        List<String> args = new ArrayList<>(containerArgs(Chart.render().one("DaemonSet")));
        args.add("--heartbeet=5m");
        assertThrows(CommandLine.ParameterException.class,
                () -> AgentMain.commandLine().parseArgs(args.toArray(String[]::new)));
        List<String> badDuration = new ArrayList<>(containerArgs(Chart.render().one("DaemonSet")));
        badDuration.replaceAll(a -> a.startsWith("--heartbeat=") ? "--heartbeat=five" : a);
        assertThrows(CommandLine.ParameterException.class,
                () -> AgentMain.commandLine().parseArgs(badDuration.toArray(String[]::new)));
    }

    private static ParseResult parse(Supplier<CommandLine> cli, List<String> args) {
        return assertDoesNotThrow(() -> cli.get().parseArgs(args.toArray(String[]::new)), args::toString);
    }

    private static List<String> containerArgs(JsonNode workload) {
        return strings(workload.path("spec").path("template").path("spec").path("containers").get(0).path("args"));
    }
}
