package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison TryItLocallyIT makes between a documented output and a real one. */
class DocOutputTest {
    private static final String DOC = """
            text
            <!-- begin -->
            ```console
            $ first
            out 1
            out 2
            $ second
            ```
            prose that is not output
            ```console
            $ third
            a
            ```
            ```console
            ^C
            stopping
            ```
            <!-- end -->
            """;

    @Test
    void readsEachCommandWithTheLinesBelowItInItsBlock() {
        List<DocOutput.Shown> shown = DocOutput.shown(DOC, "<!-- begin -->", "<!-- end -->");
        assertEquals(List.of(new DocOutput.Shown("first", List.of("out 1", "out 2")),
                new DocOutput.Shown("second", List.of()),
                new DocOutput.Shown("third", List.of("a")),
                new DocOutput.Shown("^C", List.of("stopping"))), shown);
    }

    @Test
    void masksWhatDiffersOnEveryRunAndNothingElse() {
        String doc = "  ContainerdConfigFresh   False   Thu, 03 Dec 2026 05:25:21 +0000   ConfigChangedAfterContainerdStart"
                + "   config /etc/cri/conf.d/01-registries.part changed 3453794.204 s (40 d) after containerd (pid 1217)"
                + " started; attestation=eyJhbGciOiJFZERTQSIs…";
        String real = "  ContainerdConfigFresh  False  Fri, 04 Dec 2026 11:02:09 +0000  ConfigChangedAfterContainerdStart"
                + "  config /etc/cri/conf.d/01-registries.part changed 3453790.001 s (40 d) after containerd (pid 88)"
                + " started; attestation=eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJ3b3JrZXItYiJ9.c2ln";
        assertEquals(DocOutput.normalize(doc, null), DocOutput.normalize(real, null));
        assertEquals(DocOutput.normalize("cp-1       Ready    control-plane   22s   v1.34.1", null),
                DocOutput.normalize("cp-1   Ready   control-plane   3m10s   v1.34.1", null));
        assertEquals(DocOutput.normalize("2026-12-03T05:25:48.163Z INFO  run-9591c871 rollout lock acquired", null),
                DocOutput.normalize("2026-12-04T00:00:01Z INFO run-0000abcd rollout lock acquired", null));
        assertEquals(DocOutput.normalize("  kubeconfig     /home/me/crifresh/crifresh-sim/kubeconfig", null),
                DocOutput.normalize("  kubeconfig /tmp/junit123/crifresh-sim/kubeconfig", "/tmp/junit123"));
        assertEquals(DocOutput.normalize("  API server     http://127.0.0.1:44359", null),
                DocOutput.normalize("  API server http://127.0.0.1:1234", null));
        // what a run decides is not masked
        assertFalse(DocOutput.normalize("worker-c   True    ContainerdStartedAfterConfig", null)
                .equals(DocOutput.normalize("worker-c   False   ConfigChangedAfterContainerdStart", null)));
        assertFalse(DocOutput.normalize("Non-terminated Pods: (4 in total)", null)
                .equals(DocOutput.normalize("Non-terminated Pods: (3 in total)", null)));
        assertFalse(DocOutput.normalize("reboot order: worker-b, cp-1", null)
                .equals(DocOutput.normalize("reboot order: cp-1, worker-b", null)));
    }

    @Test
    void aStaleLineIsADifferenceThatNamesIt() {
        DocOutput.Shown doc = new DocOutput.Shown("kubectl get nodes", List.of("NAME STATUS", "cp-1 Ready"));
        assertNull(DocOutput.difference(doc, List.of("NAME   STATUS", "cp-1   Ready", ""), null, false));
        String d = DocOutput.difference(doc, List.of("NAME STATUS", "cp-1 NotReady"), null, false);
        assertNotNull(d);
        assertTrue(d.contains("line 2 documented: cp-1 Ready") && d.contains("printed:    cp-1 NotReady"), d);
        assertNotNull(DocOutput.difference(doc, List.of("NAME STATUS"), null, false), "a missing line");
        assertNotNull(DocOutput.difference(doc, List.of("NAME STATUS", "cp-1 Ready", "worker-a Ready"), null, false),
                "an extra line");
    }

    @Test
    void parallelWorkIsComparedAsASet() {
        DocOutput.Shown doc = new DocOutput.Shown("rollout", List.of("a", "b", "b"));
        assertNull(DocOutput.difference(doc, List.of("b", "a", "b", "a"), null, true));
        String d = DocOutput.difference(doc, List.of("a", "c"), null, true);
        assertTrue(d.contains("documented but not printed: [b]") && d.contains("printed but not documented: [c]"), d);
    }

    /** The doc itself: no merge-conflict markers, and a walkthrough section this comparison can read. */
    @Test
    void theWalkthroughInTheDocIsReadable() throws Exception {
        Path repo = Path.of("").toAbsolutePath().getParent();
        List<Path> docs;
        try (var files = Files.list(repo.resolve("docs"))) {
            docs = files.filter(p -> p.toString().endsWith(".md")).toList();
        }
        for (Path md : docs) {
            String text = Files.readString(md, StandardCharsets.UTF_8);
            assertFalse(text.lines().anyMatch(l -> l.startsWith("<<<<<<<") || l.startsWith(">>>>>>>")
                    || l.equals("=======")), md + " has merge-conflict markers");
        }
        List<DocOutput.Shown> shown = DocOutput.shown(Files.readString(repo.resolve("docs/operations.md")),
                "<!-- try-it-locally:begin -->", "<!-- try-it-locally:end -->");
        assertEquals(TryItLocallyIT.commands(Files.readString(repo.resolve("docs/operations.md"))),
                shown.stream().map(DocOutput.Shown::command).toList());
    }
}
