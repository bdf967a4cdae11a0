package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.sim.node.TalosConfigFiles.Layout;
import dev.crifresh.sim.scenario.Credential;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * GENS_FINDINGS F1 on the real containerd 2.2.7: Talos 1.15's version 4 files, which 2.2 refuses ("expected
 * containerd config version equal to or less than `3`, got `4`"), the platform restarting the refusing containerd
 * back to back while the agent observes in a loop. Each process has Talos' command line and starts after the
 * files; before rule 1 required a serving containerd, a quarter of the observations said fresh. Now: never fresh,
 * and the refusing processes the agent saw are {@code ContainerdNotServing}. Then the same node with files 2.2
 * loads (Talos 1.13's version 3): the containerd binds its socket and ordering proves it fresh — the rule does not
 * cost an ordinary start its fresh verdict.
 *
 * <p>Threat model: a config containerd refuses and a platform that restarts it are ordinary operation (a typo in
 * a CRI customisation, an upgrade that writes a newer config version): the defended side of the line.
 */
class ServingRealityTest {
    private static final String REGISTRY = "registry.invalid:5000";
    private final ContainerdGeneration generation = ContainerdGeneration.named("2.2");
    @TempDir
    Path tmp;
    private Path fingerprintKey;
    private boolean locked;

    @BeforeEach
    void onlyOurContainerds() throws Exception {
        RealityGate.require();
        RealityGate.require(generation);
        MachineLock.acquire();
        locked = true;
        CriProcesses.awaitNoneForeign(List.of());
        fingerprintKey = Files.write(tmp.resolve("fingerprint.key"),
                "serving-suite-fingerprint-key-32-bytes!!".getBytes());
    }

    @AfterEach
    void release() {
        if (locked) {
            MachineLock.release();
        }
    }

    @Test
    void aContainerdRestartedWhileRefusingItsConfigIsNeverFreshAndAServingOneIs() throws Exception {
        CriNode node = new CriNode(tmp.resolve("node"), Layout.TALOS_1_15);
        node.render(REGISTRY, new Credential("deploy-bot", "token-v4"));
        settle();

        TalosRestarts restarts = TalosRestarts.start(node, generation);
        Map<Long, String> byPid = new TreeMap<>();
        Map<String, Integer> seen = new TreeMap<>();
        int observations = 0;
        try {
            Instant until = Instant.now().plusSeconds(10);
            while (Instant.now().isBefore(until)) {
                JsonNode json = AgentView.observeJson(node, fingerprintKey, CriNode.watchGlobs());
                AgentView view = AgentView.of(json);
                observations++;
                seen.merge(view.summary(), 1, Integer::sum);
                JsonNode c = json.get("containerd");
                if (c != null && c.isObject()) {
                    byPid.put(c.get("pid").asLong(), view.summary() + ": " + view.message());
                }
            }
        } finally {
            restarts.close();
        }
        Set<Long> refused = restarts.refused();
        byPid.keySet().retainAll(refused);
        System.out.println("containerd 2.2 on version 4 files: " + refused.size() + " refused starts; "
                + observations + " observations: " + seen);
        assertEquals(List.of(), restarts.served(), "containerd 2.2 served version 4 files");
        assertFalse(refused.isEmpty(), "containerd 2.2 never refused the version 4 files");
        assertFalse(seen.keySet().stream().anyMatch(s -> s.startsWith("fresh")),
                "fresh while containerd 2.2 refuses the files: " + seen);
        assertFalse(byPid.isEmpty(), "the agent never caught a refusing containerd alive (" + seen + ")");
        byPid.forEach((pid, said) -> assertTrue(said.startsWith("unknown (ContainerdNotServing)"),
                "pid " + pid + ": " + said));

        // The platform writes files containerd 2.2 loads: it binds its socket, and ordering proves it fresh.
        CriNode loads = new CriNode(tmp.resolve("node-v3"), Layout.TALOS_1_13);
        loads.render(REGISTRY, new Credential("deploy-bot", "token-v3"));
        settle();
        try (RealContainerd containerd = RealContainerd.start(loads, generation)) {
            settle();
            JsonNode json = AgentView.observeJson(loads, fingerprintKey, CriNode.watchGlobs());
            AgentView view = AgentView.of(json);
            assertEquals("fresh (ContainerdStartedAfterConfig, ordering)", view.summary(), view.message());
            assertEquals(containerd.pid(), json.get("containerd").get("pid").asLong());
            assertEquals("listening", json.get("containerd").get("listener").get("state").stringValue());
        }
    }

    /** Past the files' stamps and the margin, as time passes between a render and containerd's start on a node. */
    private static void settle() {
        TruthTableTest.settle(Instant.now());
    }
}
