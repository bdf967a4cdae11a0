package dev.crifresh.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScenarioReaderTest {

    static String resource(String name) throws IOException {
        try (InputStream in = ScenarioReaderTest.class.getResourceAsStream("/scenarios/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void minimalScenarioGetsEveryDefaultFromScenariosMd() throws Exception {
        Scenario s = ScenarioReader.parse("nodes: [{name: worker-a}]");
        assertEquals("ghcr.io", s.registry());
        assertEquals(new Credential("deploy-bot", "token-v2"), s.desiredCredential());
        assertEquals(new CoordinatorSpec("1", ScenarioAction.REBOOT, Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofSeconds(10), ScenarioStaleTaint.PREFER_NO_SCHEDULE, GateSpec.defaults(), false, false),
                s.coordinator());
        assertEquals(new SimulationSpec(Duration.ofMillis(300), false, SimulationSpec.DEFAULT_POD_TERMINATION), s.simulation());
        assertEquals(new NodeSpec("worker-a", Role.WORKER, Duration.ofSeconds(86400), Duration.ofSeconds(6),
                Duration.ofSeconds(3), CredentialChoice.DESIRED, null, Marker.CURRENT, AgentMode.RUNNING, true,
                false, RebootBehaviour.OK, 0, EtcdMember.HEALTHY, null, null, false, null, ClockSpec.CORRECT,
                TalosVersion.DEFAULT, null, 0, 0, List.of(), null), s.nodes().get(0));
        assertEquals(List.of(), s.revokedCredentials());
        assertEquals(List.of(), s.alerts());
    }

    @SuppressWarnings("checkstyle:methodlength") // one scenario file naming every field, and each field's value read back
    @Test
    void everyFieldIsRead() throws Exception {
        Scenario s = ScenarioReader.parse("""
                registry: registry.example.com:5000
                desiredCredential: {username: bot, password: s3cret}
                coordinator:
                  maxUnavailable: "25%"
                  action: none
                  configTimeoutSeconds: 1.5
                  rebootTimeoutSeconds: 2
                  attestTimeoutSeconds: 3
                  staleTaint: NoSchedule
                simulation: {rebootMillis: 40, containerdRestartsOnConfigChange: true, podTerminationMillis: 7}
                nodes:
                  - name: cp-1
                    role: control-plane
                    bootedSecondsAgo: 100.25
                    containerdStartedSecondsAfterBoot: 6.5
                    configWrittenSecondsAfterBoot: -2
                    credential: {username: old, password: old-pass}
                    configUpdate: {afterSeconds: 0.5, credential: desired}
                    marker: absent
                    agent: wrong-boot
                    ready: false
                    cordoned: true
                    reboot: never-returns
                    pods: 4
                    etcd: unhealthy
                  - name: w-1
                    configUpdate: null
                    batchJob: {finishesAfterSeconds: 2.5}
                    containerdCredential: {username: old, password: revoked}
                    containerdCredentialSticks: true
                    joinsAfterSeconds: 1.5
                revokedCredentials:
                  - {username: old, password: revoked}
                alerts:
                  - {name: NodeMaintenance, clearsAfterSeconds: 1.5}
                  - {name: "etcd:HighLatency"}
                """);
        assertEquals("registry.example.com:5000", s.registry());
        assertEquals(new Credential("bot", "s3cret"), s.desiredCredential());
        assertEquals(new CoordinatorSpec("25%", ScenarioAction.NONE, Duration.ofMillis(1500), Duration.ofSeconds(2),
                Duration.ofSeconds(3), ScenarioStaleTaint.NO_SCHEDULE, GateSpec.defaults(), false, false),
                s.coordinator());
        assertEquals(new SimulationSpec(Duration.ofMillis(40), true, Duration.ofMillis(7)), s.simulation());
        NodeSpec cp = s.node("cp-1");
        assertEquals(new NodeSpec("cp-1", Role.CONTROL_PLANE, Duration.ofMillis(100250), Duration.ofMillis(6500),
                Duration.ofSeconds(-2), new CredentialChoice(new Credential("old", "old-pass")),
                new ConfigUpdate(Duration.ofMillis(500), CredentialChoice.DESIRED), Marker.ABSENT,
                AgentMode.WRONG_BOOT, false, true, RebootBehaviour.NEVER_RETURNS, 4, EtcdMember.UNHEALTHY, null, null,
                false, null, ClockSpec.CORRECT, TalosVersion.DEFAULT, null, 0, 0, List.of(), null), cp);
        NodeSpec w = s.node("w-1");
        assertNull(w.configUpdate());
        assertEquals(new BatchJobSpec(Duration.ofMillis(2500)), w.batchJob());
        assertEquals(new Credential("old", "revoked"), w.containerdCredential());
        assertTrue(w.containerdCredentialSticks());
        assertEquals(Duration.ofMillis(1500), w.joinsAfter());
        assertEquals(List.of(new Credential("old", "revoked")), s.revokedCredentials());
        assertTrue(s.revoked(new Credential("old", "revoked")));
        assertEquals(List.of(new AlertSpec("NodeMaintenance", Duration.ofMillis(1500)),
                new AlertSpec("etcd:HighLatency", null)), s.alerts());
    }

    @Test
    void theExampleScenariosAreValid() throws Exception {
        Scenario fresh = ScenarioReader.parse(resource("fresh-autoscaled-node.yaml"));
        assertEquals(List.of("worker-new", "worker-old"), fresh.nodes().stream().map(NodeSpec::name).toList());
        assertEquals(Duration.ofSeconds(863000), fresh.node("worker-old").configWrittenAfterBoot());

        Scenario marker = ScenarioReader.parse(resource("marker-stamped-stale.yaml"));
        assertEquals(Role.CONTROL_PLANE, marker.node("cp-1").role());
        assertEquals(3, marker.nodes().size());

        Scenario rotation = ScenarioReader.parse(resource("rotation-during-deploy.yaml"));
        assertEquals(new Credential("deploy-bot", "token-v3"), rotation.desiredCredential());
        assertEquals(Duration.ofSeconds(15), rotation.coordinator().configTimeout());
        assertEquals(Duration.ofSeconds(10), rotation.coordinator().rebootTimeout());
        assertEquals(new ConfigUpdate(Duration.ofSeconds(2), CredentialChoice.DESIRED),
                rotation.node("worker-2").configUpdate());
        assertEquals(new Credential("deploy-bot", "token-v2"),
                rotation.node("worker-1").credential().resolve(rotation.desiredCredential()));
        assertEquals(AgentMode.EXPIRED, rotation.node("worker-3").agent());
        assertEquals(Marker.STALE, rotation.node("worker-1").marker());
    }

    @Test
    void maxUnavailableAcceptsCountsAndPercentages() throws Exception {
        assertEquals("3", budget("3"));
        assertEquals("2", budget("'2'"));
        assertEquals("25%", budget("25%"));
        assertEquals("100%", budget("'100%'"));
        assertEquals("25%", budget("' 25 %'"), "as the coordinator's --max-unavailable reads it");
    }

    private static String budget(String yaml) throws ScenarioException {
        return ScenarioReader.parse("coordinator: {maxUnavailable: " + yaml + "}\nnodes: [{name: a}]")
                .coordinator().maxUnavailable();
    }

    @Test
    void aConfigThatLooksOlderThanTheBootIsAllowed() throws Exception {
        Scenario s = ScenarioReader.parse("nodes: [{name: a, configWrittenSecondsAfterBoot: -30}]");
        assertEquals(Duration.ofSeconds(-30), s.nodes().get(0).configWrittenAfterBoot());
    }

    @Test
    void drainAndAutoscalerFieldsAreRead() throws Exception {
        Scenario s = ScenarioReader.parse("""
                coordinator: {force: true, deleteEmptyDirData: true}
                nodes:
                  - {name: a, barePods: 2, emptyDirPods: 1, deletedAfterSeconds: 1.5,
                     taints: [{key: ToBeDeletedByClusterAutoscaler, effect: NoSchedule}, {key: DeletionCandidateOfClusterAutoscaler, effect: PreferNoSchedule}]}
                  - {name: b}
                """);
        assertEquals(true, s.coordinator().force());
        assertEquals(true, s.coordinator().deleteEmptyDirData());
        NodeSpec a = s.nodes().get(0);
        assertEquals(2, a.barePods());
        assertEquals(1, a.emptyDirPods());
        assertEquals(Duration.ofMillis(1500), a.deletedAfter());
        assertEquals(List.of(new TaintSpec("ToBeDeletedByClusterAutoscaler", "NoSchedule"),
                new TaintSpec("DeletionCandidateOfClusterAutoscaler", "PreferNoSchedule")), a.taints());
        NodeSpec b = s.nodes().get(1);
        assertEquals(0, b.barePods());
        assertEquals(List.of(), b.taints());
        assertEquals(null, b.deletedAfter());
        assertEquals(false, ScenarioReader.parse("nodes: [{name: a}]").coordinator().force());
    }

    @Test
    void clockAndTalosVersionAreReadWithTheirDefaults() throws Exception {
        NodeSpec plain = ScenarioReader.parse("nodes: [{name: a}]").nodes().get(0);
        assertEquals(ClockSpec.CORRECT, plain.clock());
        assertEquals("Talos (v1.13.4)", plain.talosVersion().osImage());
        assertFalse(plain.talosVersion().restartsContainerdOnConfigChange());
        assertNull(plain.osImage());
        assertEquals("Talos (v1.13.4)", plain.reportedOsImage());

        NodeSpec epoch = ScenarioReader.parse("""
                nodes:
                  - name: a
                    talosVersion: v1.14.1
                    clock: {offsetAtBootSeconds: -1764000000, steppedSecondsAfterBoot: 20.5, everyBoot: false}
                """).nodes().get(0);
        assertEquals(new ClockSpec(Duration.ofSeconds(-1764000000), Duration.ofMillis(20500), false), epoch.clock());
        assertEquals("Talos (v1.14.1)", epoch.talosVersion().osImage());
        assertTrue(epoch.talosVersion().restartsContainerdOnConfigChange());
        assertEquals(ClockSpec.CORRECT, epoch.clock().onBoot(2), "everyBoot: false: rebooted boots come up true");
        assertEquals(epoch.clock(), epoch.clock().onBoot(1));
        // before the step a stamp carries the offset, from the step on it is true
        assertEquals(Duration.ofSeconds(3 - 1764000000L), epoch.clock().stamp(Duration.ofSeconds(3)));
        assertEquals(Duration.ofMillis(20500), epoch.clock().stamp(Duration.ofMillis(20500)));
    }

    @Test
    void osImageIsAnyStringAndLeavesTheBehaviourToTalosVersion() throws Exception {
        Scenario s = ScenarioReader.parse("""
                nodes:
                  - {name: custom, osImage: Talos (custom-build)}
                  - {name: flatcar, osImage: Flatcar Container Linux by Kinvolk 4152.2.0 (Oklo), talosVersion: v1.14.1}
                  - {name: silent, osImage: ''}
                """);
        assertEquals("Talos (custom-build)", s.node("custom").reportedOsImage());
        assertEquals(TalosVersion.DEFAULT, s.node("custom").talosVersion());
        assertEquals("Flatcar Container Linux by Kinvolk 4152.2.0 (Oklo)", s.node("flatcar").reportedOsImage());
        assertTrue(s.node("flatcar").talosVersion().restartsContainerdOnConfigChange(), "talosVersion still decides the behaviour");
        assertEquals("", s.node("silent").reportedOsImage());

        assertEquals("nodes[0] (a).osImage: expected a string, got 1.14",
                assertThrows(ScenarioException.class, () -> ScenarioReader.parse("nodes: [{name: a, osImage: 1.14}]")).getMessage());
        assertEquals("nodes[0] (a).osImage: no value given, expected a string (quote an empty one: '')",
                assertThrows(ScenarioException.class, () -> ScenarioReader.parse("nodes: [{name: a, osImage: }]")).getMessage());
        assertEquals("nodes[0] (a).osImage: longer than 256 characters",
                assertThrows(ScenarioException.class, () -> ScenarioReader.parse("nodes: [{name: a, osImage: " + "x".repeat(257) + "}]"))
                        .getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(textBlock = """
            v1.13.4, false
            v1.13.99, false
            v1.14.0, true
            v1.14.0-alpha.1, true
            v1.15.2, true
            v2.0.0, true
            v0.14.0, false
            """)
    void talosRestartsContainerdOnAConfigChangeFromVersion114(String version, boolean restarts) {
        assertEquals(restarts, TalosVersion.parse(version).restartsContainerdOnConfigChange());
    }
}
