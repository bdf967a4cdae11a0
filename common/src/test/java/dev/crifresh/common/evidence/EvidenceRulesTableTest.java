package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.PullCredentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/design.md's table of the rules and the code's list are the same rules in the same order. */
class EvidenceRulesTableTest {
    private static final Path DESIGN = Path.of("").toAbsolutePath().getParent().resolve("docs/design.md");

    /** {@code number name} of every row of the table in the section "The rules". */
    static List<String> documented() throws IOException {
        String text = Files.readString(DESIGN);
        int section = text.indexOf("\n## The rules\n");
        int next = text.indexOf("\n## ", section + 1);
        assertTrue(section >= 0 && next > section, "docs/design.md has a section \"The rules\"");
        List<String> rows = new ArrayList<>();
        for (String line : text.substring(section, next).split("\n")) {
            if (!line.startsWith("| ") || line.startsWith("| # ")) {
                continue;
            }
            String[] cells = line.split("\\|");
            rows.add(cells[1].strip() + " " + cells[2].strip());
        }
        return rows;
    }

    @Test
    void theDocumentedTableIsTheCodesTableInOrder() throws IOException {
        assertEquals(EvidenceRules.table(), documented());
    }

    @Test
    void everyReasonIsNamedInTheTable() throws IOException {
        String text = Files.readString(DESIGN);
        String table = text.substring(text.indexOf("\n## The rules\n"), text.indexOf("\nIn detail:\n"));
        for (Reason reason : Reason.values()) {
            assertTrue(table.contains("`" + reason.code() + "`"), reason.code() + " is not in the table");
        }
    }

    /** Rules 7–11 apply in the table's order to what rules 1–6 gave (fresh by ordering here). */
    @Test
    void theRewritesApplyInTheTablesOrder() {
        Observation fresh = Given.given().build();
        KubeletReady down = new KubeletReady("False", "KubeletNotReady", "container runtime is down");
        PullCredentials.Problem problem = new PullCredentials.Problem(PullCredentials.Kind.KEY_NEVER_MATCHED,
                "ghcr.io", "the key 'http://ghcr.io' is never looked up");
        assertEquals(Reason.CONTAINERD_STARTED_AFTER_CONFIG, evaluate(fresh, List.of(), List.of(), List.of(), null));
        assertEquals(Reason.CONTAINER_RUNTIME_NOT_READY, evaluate(fresh, List.of(), List.of(), List.of(), down));
        assertEquals(Reason.REGISTRY_KEY_NEVER_MATCHED, evaluate(fresh, List.of(), List.of(problem), List.of(), down),
                "8 before 10: stale is not fresh, the kubelet rule leaves it");
        assertEquals(Reason.CONFIG_UNREADABLE, evaluate(fresh, List.of("/a.toml: x"), List.of(problem), List.of(), down));
        assertEquals(Reason.CONTAINERD_AMBIGUOUS, evaluate(fresh, List.of(), List.of(problem), List.of("pid 7"), down),
                "9 over 8");
        assertEquals(Reason.CONFIG_UNREADABLE, evaluate(fresh, List.of("/a.toml: x"), List.of(), List.of("pid 7"),
                down), "9 keeps another unknown");
    }

    private static Reason evaluate(Observation o, List<String> failures, List<PullCredentials.Problem> problems,
            List<String> unreadable, KubeletReady kubelet) {
        return EvidenceRules.evaluate(new EvidenceRules.Inputs(o, RuleSettings.defaults(), null, RuntimeAuth.UNAVAILABLE,
                false, failures, problems, unreadable, kubelet)).reason();
    }
}
