package dev.crifresh.reality;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The truth tables as the suite runs them, one per containerd generation and layout: one row per phase,
 * printed as each phase ends and once per table at the end.
 */
final class TruthTable {
    static final String HEADER = "| phase | threat model | `observe` | `observe --cri-socket` | files' fingerprint"
            + " | real pull | fresh ⇒ pull OK |\n|---|---|---|---|---|---|---|";
    private static final Map<String, List<String>> TABLES = new LinkedHashMap<>();

    private TruthTable() {
    }

    static synchronized void row(String table, String phase, String side, AgentView view, AgentView withSocket,
            boolean currentFingerprint, CriClient.Pull pull) {
        boolean fresh = "fresh".equals(view.verdict()) || "fresh".equals(withSocket.verdict());
        String invariant = !fresh ? "holds (not fresh)" : pull.ok() ? "holds" : "VIOLATED";
        String fingerprint = view.registries().isEmpty() ? "none" : currentFingerprint ? "current" : "old";
        String line = "| " + phase + " | " + side + " | " + view.summary() + " | " + withSocket.summary() + " | "
                + fingerprint + " | " + pull.summary() + " | " + invariant + " |";
        TABLES.computeIfAbsent(table, t -> new ArrayList<>()).add(line);
        System.out.println("truth table (" + table + "): " + line);
    }

    static synchronized void print() {
        TABLES.forEach((table, rows) -> {
            System.out.println("truth table (real " + table + ", real registry):\n" + HEADER);
            rows.forEach(System.out::println);
        });
    }
}
