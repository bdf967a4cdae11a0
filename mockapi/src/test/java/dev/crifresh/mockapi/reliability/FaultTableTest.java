package dev.crifresh.mockapi.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultTableTest {
    @TempDir
    Path dir;

    private static final String DOCS = "# title\n\n<!-- BEGIN fault-table s -->\nold\n<!-- END fault-table s -->\ntail\n";

    private FaultTable complete() {
        FaultTable t = new FaultTable("s", 3);
        t.add(new FaultRow("A10", "killed", "late", "ok", true));
        t.add(new FaultRow("A2", "a | b", "early", "fine", true));
        t.add(new FaultRow("B1", "budget", "start", "held", true));
        return t;
    }

    @Test
    void rowsAreSortedNaturallyAndPipesEscaped() {
        assertEquals("| # | fault | injected at | result |\n|---|---|---|---|\n"
                + "| A2 | a \\| b | early | fine |\n| A10 | killed | late | ok |\n| B1 | budget | start | held |\n",
                complete().markdown());
    }

    @Test
    void aTableWhoseRowsSayWhetherAHumanMustActHasThatColumn() {
        FaultTable t = new FaultTable("s", 2);
        t.add(new FaultRow("A1", "killed", "late", "rebooted once", true, "no"));
        t.add(new FaultRow("N1", "down", "after", "failed", true, "yes: the machine | its power"));
        assertEquals("| # | fault | injected at | result | needs a human? |\n|---|---|---|---|---|\n"
                + "| A1 | killed | late | rebooted once | no |\n| N1 | down | after | failed | yes: the machine \\| its power |\n",
                t.markdown());
        t.add(new FaultRow("N2", "x", "y", "z", true));
        IllegalStateException mixed = assertThrows(IllegalStateException.class, t::markdown);
        assertTrue(mixed.getMessage().contains("N2"), mixed.getMessage());
    }

    @Test
    void aStaleDocsTableFailsTheCompleteRunAndIsRewrittenOnRequest() throws Exception {
        Path docs = Files.writeString(dir.resolve("reliability.md"), DOCS);
        AssertionError stale = assertThrows(AssertionError.class, () -> complete().finish(dir, docs));
        assertTrue(stale.getMessage().contains("out of date"), stale.getMessage());
        assertTrue(Files.readString(dir.resolve("target/reliability/s.md")).contains("| A2 |"));

        System.setProperty(FaultTable.WRITE_DOCS, "true");
        try {
            complete().finish(dir, docs);
        } finally {
            System.clearProperty(FaultTable.WRITE_DOCS);
        }
        String rewritten = Files.readString(docs);
        assertTrue(rewritten.startsWith("# title\n\n<!-- BEGIN fault-table s -->\n| # |"), rewritten);
        assertTrue(rewritten.endsWith("| B1 | budget | start | held |\n<!-- END fault-table s -->\ntail\n"), rewritten);
        complete().finish(dir, docs); // in sync now: passes
    }

    @Test
    void aPartialRunWritesAndChecksNothing() throws Exception {
        Path docs = Files.writeString(dir.resolve("reliability.md"), DOCS);
        FaultTable partial = new FaultTable("s", 3);
        partial.add(new FaultRow("A2", "x", "y", "z", true));
        partial.finish(dir, docs);
        assertFalse(Files.exists(dir.resolve("target/reliability/s.md")));
        assertEquals(DOCS, Files.readString(docs));
    }
}
