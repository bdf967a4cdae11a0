package dev.crifresh.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the scenario reader rejects, and the one line that says why. */
class ScenarioReaderErrorsTest {
    @Test
    void theIssueExampleErrorIsExact() {
        ScenarioException e = assertThrows(ScenarioException.class, () -> ScenarioReader.parse("""
                nodes:
                  - name: worker-x
                  - name: worker-y
                  - name: worker-b
                    reboot: sometimes
                """));
        assertEquals("nodes[2] (worker-b).reboot: unknown value 'sometimes', expected ok | never-returns",
                e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", textBlock = """
            'foo: 1\nnodes: [{name: a}]' => 'foo: unknown field, expected one of: registry, desiredCredential, revokedCredentials, coordinator, simulation, alerts, nodes'
            'nodes: [{name: a, rebooot: ok}]' => 'nodes[0] (a).rebooot: unknown field, expected one of: name, role, bootedSecondsAgo, containerdStartedSecondsAfterBoot, configWrittenSecondsAfterBoot, credential, configUpdate, marker, agent, ready, cordoned, reboot, pods, etcd, batchJob, containerdCredential, containerdCredentialSticks, joinsAfterSeconds, clock, talosVersion, osImage, barePods, emptyDirPods, taints, deletedAfterSeconds'
            'coordinator: {maxUnavailble: 1}\nnodes: [{name: a}]' => 'coordinator.maxUnavailble: unknown field, expected one of: maxUnavailable, action, configTimeoutSeconds, rebootTimeoutSeconds, attestTimeoutSeconds, staleTaint, pullProof, pullProofImage, pullProofTimeoutSeconds, etcdCheck, blockOnAlert, blockOnPodSelector, blockTimeoutSeconds, force, deleteEmptyDirData'
            'simulation: {rebootSeconds: 1}\nnodes: [{name: a}]' => 'simulation.rebootSeconds: unknown field, expected one of: rebootMillis, containerdRestartsOnConfigChange, podTerminationMillis'
            'nodes: [{name: a, role: master}]' => 'nodes[0] (a).role: unknown value ''master'', expected worker | control-plane'
            'nodes: [{name: a, marker: maybe}]' => 'nodes[0] (a).marker: unknown value ''maybe'', expected current | stale | absent'
            'nodes: [{name: a, agent: hung}]' => 'nodes[0] (a).agent: unknown value ''hung'', expected running | absent | expired | forged | tampered | wrong-node | wrong-boot'
            'nodes: [{name: a, reboot: 1}]' => 'nodes[0] (a).reboot: expected ok | never-returns, got 1'
            'coordinator: {action: drain}\nnodes: [{name: a}]' => 'coordinator.action: unknown value ''drain'', expected reboot | none | auto'
            'nodes: [{name: a}, {name: b}, {name: a}]' => 'nodes[2] (a).name: duplicate node name ''a'' (also nodes[0])'
            'nodes: [{name: a, bootedSecondsAgo: -1}]' => 'nodes[0] (a).bootedSecondsAgo: must not be negative, got -1'
            'nodes: [{name: a, containerdStartedSecondsAfterBoot: -0.5}]' => 'nodes[0] (a).containerdStartedSecondsAfterBoot: must not be negative, got -0.5'
            'nodes: [{name: a, pods: -2}]' => 'nodes[0] (a).pods: must be between 0 and 200, got -2'
            'nodes: [{name: a, pods: 2.5}]' => 'nodes[0] (a).pods: expected a whole number, got 2.5'
            'nodes: [{name: a, configUpdate: {afterSeconds: -1}}]' => 'nodes[0] (a).configUpdate.afterSeconds: must not be negative, got -1'
            'nodes: [{name: a, configUpdate: {credential: desired}}]' => 'nodes[0] (a).configUpdate.afterSeconds: missing, this field is required'
            'nodes: [{name: a, configUpdate: {afterSeconds: 1, when: now}}]' => 'nodes[0] (a).configUpdate.when: unknown field, expected one of: afterSeconds, credential'
            'nodes: [{name: a, configUpdate: soon}]' => 'nodes[0] (a).configUpdate: expected a mapping, got ''soon'''
            'simulation: {rebootMillis: -300}\nnodes: [{name: a}]' => 'simulation.rebootMillis: must be between 0 and 600000, got -300'
            'coordinator: {configTimeoutSeconds: -1}\nnodes: [{name: a}]' => 'coordinator.configTimeoutSeconds: must not be negative, got -1'
            'coordinator: {rebootTimeoutSeconds: -1}\nnodes: [{name: a}]' => 'coordinator.rebootTimeoutSeconds: must not be negative, got -1'
            'coordinator: {rebootTimeoutSeconds: 0}\nnodes: [{name: a}]' => 'coordinator.rebootTimeoutSeconds: must be more than 0'
            'coordinator: {attestTimeoutSeconds: ten}\nnodes: [{name: a}]' => 'coordinator.attestTimeoutSeconds: expected a number of seconds, got ''ten'''
            'nodes: [{name: a, bootedSecondsAgo: 1e12}]' => 'nodes[0] (a).bootedSecondsAgo: 1.0E12 is out of range (at most 1000000000 seconds)'
            'nodes: [{name: a, bootedSecondsAgo: 5, containerdStartedSecondsAfterBoot: 7}]' => 'nodes[0] (a).containerdStartedSecondsAfterBoot: 7 is after now (the node booted 5 seconds ago)'
            'nodes: [{name: a, bootedSecondsAgo: 600, configWrittenSecondsAfterBoot: 600.5}]' => 'nodes[0] (a).configWrittenSecondsAfterBoot: 600.5 is after now (the node booted 600 seconds ago)'
            'nodes: [{name: a, credential: sometimes}]' => 'nodes[0] (a).credential: expected ''desired'' or {username, password}, got a string'
            'nodes: [{name: a, credential: [x]}]' => 'nodes[0] (a).credential: expected ''desired'' or {username, password}, got a list'
            'nodes: [{name: a, credential: {username: u}}]' => 'nodes[0] (a).credential.password: missing, this field is required'
            'nodes: [{name: a, credential: {username: u, password: p, token: t}}]' => 'nodes[0] (a).credential.token: unknown field, expected one of: username, password'
            'desiredCredential: desired\nnodes: [{name: a}]' => 'desiredCredential: expected a mapping, got ''desired'''
            'desiredCredential: {password: p}\nnodes: [{name: a}]' => 'desiredCredential.username: missing, this field is required'
            'coordinator: {maxUnavailable: 0}\nnodes: [{name: a}]' => 'coordinator.maxUnavailable: expected a count of at least 1 (e.g. 2) or a percentage from 1% to 100% (e.g. 25%), got 0'
            'coordinator: {maxUnavailable: 0%}\nnodes: [{name: a}]' => 'coordinator.maxUnavailable: expected a count of at least 1 (e.g. 2) or a percentage from 1% to 100% (e.g. 25%), got ''0%'''
            'coordinator: {maxUnavailable: 150%}\nnodes: [{name: a}]' => 'coordinator.maxUnavailable: expected a count of at least 1 (e.g. 2) or a percentage from 1% to 100% (e.g. 25%), got ''150%'''
            'coordinator: {maxUnavailable: half}\nnodes: [{name: a}]' => 'coordinator.maxUnavailable: expected a count of at least 1 (e.g. 2) or a percentage from 1% to 100% (e.g. 25%), got ''half'''
            'coordinator: {maxUnavailable: 1.5}\nnodes: [{name: a}]' => 'coordinator.maxUnavailable: expected a count of at least 1 (e.g. 2) or a percentage from 1% to 100% (e.g. 25%), got 1.5'
            'coordinator: {maxUnavailable: -1}\nnodes: [{name: a}]' => 'coordinator.maxUnavailable: expected a count of at least 1 (e.g. 2) or a percentage from 1% to 100% (e.g. 25%), got -1'
            'coordinator: {maxUnavailable: 99999999999}\nnodes: [{name: a}]' => 'coordinator.maxUnavailable: expected a count of at least 1 (e.g. 2) or a percentage from 1% to 100% (e.g. 25%), got 99999999999'
            'nodes: [{name: Worker_A}]' => 'nodes[0] (Worker_A).name: ''Worker_A'' is not a valid node name (lower-case letters, digits, ''-'' and ''.'')'
            'nodes: [{role: worker}]' => 'nodes[0].name: missing, this field is required'
            'nodes: [{name: 7}]' => 'nodes[0].name: expected a non-empty string, got 7'
            'registry: ghcr.io\n' => 'nodes: expected a list of at least one node, got nothing'
            'nodes: []' => 'nodes: expected a list of at least one node, got an empty list'
            'nodes: [worker-a]' => 'nodes[0]: expected a mapping, got ''worker-a'''
            'nodes: [{name: a, ready: yes}]' => 'nodes[0] (a).ready: expected true or false, got ''yes'''
            'nodes: [{name: a, cordoned: 1}]' => 'nodes[0] (a).cordoned: expected true or false, got 1'
            'nodes: [{name: a, marker: }]' => 'nodes[0] (a).marker: no value given'
            'registry: ''ghcr.io/x y''\nnodes: [{name: a}]' => 'registry: ''ghcr.io/x y'' is not a registry host (e.g. ghcr.io)'
            '- a\n- b' => 'the scenario: expected a mapping, got a list'
            'desiredCredential: {username: "a\\tb", password: p}\nnodes: [{name: a}]' => 'desiredCredential.username: must not contain control characters'
            'nodes: [{name: a, credential: {username: u, password: "x\\0y"}}]' => 'nodes[0] (a).credential.password: must not contain control characters'
            'nodes: [{name: a, talosVersion: 1.14.0}]' => 'nodes[0] (a).talosVersion: ''1.14.0'' is not a Talos version (e.g. v1.13.4)'
            'nodes: [{name: a, talosVersion: v1.14}]' => 'nodes[0] (a).talosVersion: ''v1.14'' is not a Talos version (e.g. v1.13.4)'
            'nodes: [{name: a, clock: {offsetAtBoot: 5}}]' => 'nodes[0] (a).clock.offsetAtBoot: unknown field, expected one of: offsetAtBootSeconds, steppedSecondsAfterBoot, everyBoot'
            'nodes: [{name: a, clock: }]' => 'nodes[0] (a).clock: no value given, expected {offsetAtBootSeconds, steppedSecondsAfterBoot, everyBoot}'
            'nodes: [{name: a, clock: fast}]' => 'nodes[0] (a).clock: expected a mapping, got ''fast'''
            'nodes: [{name: a, clock: {steppedSecondsAfterBoot: -1}}]' => 'nodes[0] (a).clock.steppedSecondsAfterBoot: must not be negative, got -1'
            'nodes: [{name: a, bootedSecondsAgo: 10, clock: {offsetAtBootSeconds: -5, steppedSecondsAfterBoot: 20}}]' => 'nodes[0] (a).clock.steppedSecondsAfterBoot: 20 is after now (the node booted 10 seconds ago)'
            'nodes: [{name: a, clock: {offsetAtBootSeconds: -3000000000}}]' => 'nodes[0] (a).clock.offsetAtBootSeconds: -3000000000 puts the clock at boot before 1970-01-01'
            'nodes: [{name: a, clock: {offsetAtBootSeconds: 5e9}}]' => 'nodes[0] (a).clock.offsetAtBootSeconds: 5.0E9 is out of range (at most 4000000000 seconds)'
            'nodes: [{name: a, clock: {everyBoot: sometimes}}]' => 'nodes[0] (a).clock.everyBoot: expected true or false, got ''sometimes'''
            'nodes: [{name: a, barePods: -1}]' => 'nodes[0] (a).barePods: must be between 0 and 200, got -1'
            'nodes: [{name: a, emptyDirPods: 2.5}]' => 'nodes[0] (a).emptyDirPods: expected a whole number, got 2.5'
            'nodes: [{name: a, taints: [{key: ToBeDeletedByClusterAutoscaler, effect: Sometimes}]}]' => 'nodes[0] (a).taints[0].effect: unknown value ''Sometimes'', expected NoSchedule | PreferNoSchedule | NoExecute'
            'nodes: [{name: a, taints: [{key: ''a b''}]}]' => 'nodes[0] (a).taints[0].key: ''a b'' is not a taint key (e.g. ToBeDeletedByClusterAutoscaler)'
            'nodes: [{name: a, taints: [{key: x, value: y}]}]' => 'nodes[0] (a).taints[0].value: unknown field, expected one of: key, effect'
            'nodes: [{name: a, taints: ToBeDeletedByClusterAutoscaler}]' => 'nodes[0] (a).taints: expected a list of at most 100 {key, effect}, got ''ToBeDeletedByClusterAutoscaler'''
            'nodes: [{name: a, deletedAfterSeconds: -2}]' => 'nodes[0] (a).deletedAfterSeconds: must not be negative, got -2'
            'nodes: [{name: a, joinsAfterSeconds: 3, deletedAfterSeconds: 2}]' => 'nodes[0] (a).deletedAfterSeconds: must be after joinsAfterSeconds (the node is deleted after it joined)'
            'coordinator: {force: yes}\nnodes: [{name: a}]' => 'coordinator.force: expected true or false, got ''yes'''
            """)
    void rejects(String yaml, String message) {
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> ScenarioReader.parse(yaml.replace("\\n", "\n")));
        assertEquals(message, e.getMessage());
    }

    @Test
    void rejectsDuplicateKeysAndBrokenYamlWithALine() {
        ScenarioException dup = assertThrows(ScenarioException.class, () -> ScenarioReader.parse("""
                nodes:
                  - name: a
                    pods: 1
                    pods: 2
                """));
        assertTrue(dup.getMessage().startsWith("not valid YAML: line 4"), dup.getMessage());
        assertTrue(dup.getMessage().contains("pods"), dup.getMessage());

        ScenarioException broken = assertThrows(ScenarioException.class,
                () -> ScenarioReader.parse("nodes: [{name: a\n  pods: 1"));
        assertTrue(broken.getMessage().startsWith("not valid YAML: line "), broken.getMessage());
        assertFalse(broken.getMessage().contains("\n"), broken.getMessage());

        ScenarioException empty = assertThrows(ScenarioException.class, () -> ScenarioReader.parse("# nothing\n"));
        assertEquals("the scenario is empty, expected a mapping with at least 'nodes'", empty.getMessage());
    }

    @Test
    void neverRepeatsAPassword() {
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> ScenarioReader.parse("desiredCredential: {username: u, password: 987654}\nnodes: [{name: a}]"));
        assertEquals("desiredCredential.password: expected a non-empty string", e.getMessage());
        assertFalse(new Credential("u", "hunter2").toString().contains("hunter2"));
    }

    @Test
    void fileErrorsNameTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "nodes: [{name: a, agent: sleepy}]");
        ScenarioException bad = assertThrows(ScenarioException.class, () -> ScenarioReader.read(file));
        assertEquals(file + ": nodes[0] (a).agent: unknown value 'sleepy', expected running | absent | expired"
                + " | forged | tampered | wrong-node | wrong-boot", bad.getMessage());

        ScenarioException missing = assertThrows(ScenarioException.class,
                () -> ScenarioReader.read(dir.resolve("nope.yaml")));
        assertEquals(dir.resolve("nope.yaml") + ": no such file", missing.getMessage());
    }

    /** Fuzz finding: a quoted value or key with line breaks made the one-line error span several lines. */
    @Test
    void errorsQuotingLineBreaksStayOneLine() {
        ScenarioException value = assertThrows(ScenarioException.class,
                () -> ScenarioReader.parse("\"already\\nsusername:\\r\\n x\"\n"));
        assertEquals("the scenario: expected a mapping, got 'already\\nsusername:\\r\\n x'", value.getMessage());
        ScenarioException key = assertThrows(ScenarioException.class,
                () -> ScenarioReader.parse("nodes: []\n\"odd\\nkey\": 1\n"));
        assertFalse(key.getMessage().contains("\n"), key.getMessage());
        assertTrue(key.getMessage().startsWith("odd\\nkey: unknown field"), key.getMessage());
    }

    @Test
    void gateFieldsAreValidated() {
        assertRejected("""
                revokedCredentials: [{username: deploy-bot, password: token-v2}]
                nodes: [{name: a}]
                """, "revokedCredentials[0]: is the desired credential");
        assertRejected("""
                revokedCredentials: {username: a, password: b}
                nodes: [{name: a}]
                """, "revokedCredentials: expected a list");
        assertRejected("""
                alerts: [{name: "bad name"}]
                nodes: [{name: a}]
                """, "alerts[0].name: 'bad name' is not an alert name");
        assertRejected("""
                alerts: [{name: A, clearsAfterSeconds: -1}]
                nodes: [{name: a}]
                """, "alerts[0].clearsAfterSeconds: must not be negative");
        assertRejected("""
                nodes: [{name: a, etcd: unhealthy}]
                """, "nodes[0] (a).etcd: only a control-plane node runs an etcd member");
        assertRejected("""
                nodes: [{name: a, role: control-plane, etcd: sick}]
                """, "nodes[0] (a).etcd: unknown value 'sick'");
        assertRejected("""
                nodes: [{name: a, containerdCredentialSticks: true}]
                """, "nodes[0] (a).containerdCredentialSticks: needs containerdCredential");
        assertRejected("""
                nodes: [{name: a, batchJob: {runs: true}}]
                """, "nodes[0] (a).batchJob.runs: unknown field");
    }

    private static void assertRejected(String yaml, String message) {
        ScenarioException e = org.junit.jupiter.api.Assertions.assertThrows(ScenarioException.class,
                () -> ScenarioReader.parse(yaml));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }
}
