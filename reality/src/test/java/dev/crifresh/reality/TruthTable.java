package dev.crifresh.reality;

import java.util.ArrayList;
import java.util.List;

/** The truth table as the suite runs it: one row per phase, printed as each phase ends and once at the end. */
final class TruthTable {
    static final String HEADER = "| phase | threat model | `observe` | `observe --cri-socket` | files' fingerprint"
            + " | real pull | fresh ⇒ pull OK |\n|---|---|---|---|---|---|---|";
    private static final List<String> ROWS = new ArrayList<>();

    private TruthTable() {
    }

    static synchronized void row(String phase, String side, AgentView view, AgentView withSocket,
            boolean currentFingerprint, CriClient.Pull pull) {
        boolean fresh = "fresh".equals(view.verdict()) || "fresh".equals(withSocket.verdict());
        String invariant = !fresh ? "holds (not fresh)" : pull.ok() ? "holds" : "VIOLATED";
        String fingerprint = view.registries().isEmpty() ? "none" : currentFingerprint ? "current" : "old";
        String line = "| " + phase + " | " + side + " | " + view.summary() + " | " + withSocket.summary() + " | "
                + fingerprint + " | " + pull.summary() + " | " + invariant + " |";
        ROWS.add(line);
        System.out.println("truth table: " + line);
    }

    static synchronized void note(String line) {
        ROWS.add(line);
        System.out.println("truth table: " + line);
    }

    static synchronized void print() {
        System.out.println("truth table (real containerd " + "1.6, real registry):\n" + HEADER);
        ROWS.forEach(System.out::println);
    }
}
