package dev.crifresh.mockapi.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Collects the rows of one fault-injection suite and, when the suite ran complete, writes its summary
 * table to {@code target/reliability/<suite>.md} and keeps the table in {@code docs/reliability.md} in sync.
 *
 * <p>The docs hold each suite's table between {@code <!-- BEGIN fault-table <suite> -->} and
 * {@code <!-- END fault-table <suite> -->}. A complete run whose table differs from the docs fails with
 * the difference, unless {@code -Dreliability.writeDocs=true} is given: then the docs are rewritten.
 * Partial runs (a single case selected) write nothing and check nothing.
 */
public final class FaultTable {
    /** Set to {@code true} to rewrite the docs tables from a run's results. */
    public static final String WRITE_DOCS = "reliability.writeDocs";
    private static final String HEADER = "| # | fault | injected at | result |\n|---|---|---|---|\n";
    /** A table whose rows say whether a human must act afterwards (the coordinator's: issue 33). */
    private static final String HEADER_HUMAN = "| # | fault | injected at | result | needs a human? |\n|---|---|---|---|---|\n";

    private final String suite;
    private final int expectedRows;
    private final List<FaultRow> rows = new ArrayList<>();

    /**
     * @param suite        the table's name in the docs markers (e.g. {@code coordinator})
     * @param expectedRows how many cases the complete suite has
     */
    public FaultTable(String suite, int expectedRows) {
        this.suite = suite;
        this.expectedRows = expectedRows;
    }

    /**
     * The cases a run selects: all of them, or with {@code -Dfault.case=A3} (or {@code A2,A3}) only those, each
     * {@code -Dfault.repeat=N} times (to show a case is not flaky). A selection is a partial run: no table is written.
     */
    public static <C> Stream<C> selected(Stream<C> all, Function<C, String> id) {
        List<String> only = Stream.of(System.getProperty("fault.case", "").split(",")).map(String::trim)
                .filter(name -> !name.isEmpty()).toList();
        int repeat = Math.max(1, Integer.getInteger("fault.repeat", 1));
        return all.filter(c -> only.isEmpty() || only.contains(id.apply(c))).flatMap(c -> Stream.generate(() -> c).limit(repeat));
    }

    public synchronized void add(FaultRow row) {
        rows.add(row);
    }

    public synchronized List<FaultRow> rows() {
        return List.copyOf(rows);
    }

    /** The table in Markdown, rows sorted by id (natural order: A2 before A10). */
    public synchronized String markdown() {
        boolean human = rows.stream().anyMatch(r -> r.human() != null);
        rows.stream().filter(r -> human && r.human() == null).findFirst().ifPresent(r -> {
            throw new IllegalStateException("row " + r.id() + " does not say whether a human must act, unlike the others");
        });
        StringBuilder out = new StringBuilder(human ? HEADER_HUMAN : HEADER);
        rows.stream().sorted(Comparator.comparing(FaultRow::id, FaultTable::naturalOrder))
                .forEach(r -> out.append(r.markdown()).append('\n'));
        return out.toString();
    }

    /**
     * Writes {@code target/reliability/<suite>.md} under {@code moduleDir} and checks (or, with
     * {@value #WRITE_DOCS}, rewrites) the table in {@code docs}. Does nothing after a partial run.
     *
     * @throws AssertionError when the docs table differs from this run's and may not be rewritten
     */
    public synchronized void finish(Path moduleDir, Path docs) throws IOException {
        if (rows.size() != expectedRows) {
            return;
        }
        String table = markdown();
        Path out = moduleDir.resolve("target/reliability/" + suite + ".md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, table, StandardCharsets.UTF_8);
        if (rows.stream().anyMatch(r -> !r.passed())) {
            return; // the failing case already fails the build; the docs keep the last good table
        }
        String begin = "<!-- BEGIN fault-table " + suite + " -->\n";
        String end = "<!-- END fault-table " + suite + " -->";
        String text = Files.readString(docs, StandardCharsets.UTF_8);
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            throw new AssertionError(docs + " has no " + begin.trim() + " ... " + end + " section for this suite");
        }
        String current = text.substring(from + begin.length(), to);
        if (current.equals(table)) {
            return;
        }
        if (Boolean.getBoolean(WRITE_DOCS)) {
            Files.writeString(docs, text.substring(0, from + begin.length()) + table + text.substring(to), StandardCharsets.UTF_8);
            return;
        }
        throw new AssertionError(docs + ": the " + suite + " fault table is out of date with this run's results ("
                + out + "); rerun the suite with -D" + WRITE_DOCS + "=true to update it.\nexpected:\n" + table
                + "\nin the docs:\n" + current);
    }

    /** Compares ids such as A2 and A10 by their letters, then their number. */
    static int naturalOrder(String a, String b) {
        String pa = a.replaceAll("[0-9]+$", "");
        String pb = b.replaceAll("[0-9]+$", "");
        if (!pa.equals(pb)) {
            return pa.compareTo(pb);
        }
        String na = a.substring(pa.length());
        String nb = b.substring(pb.length());
        if (na.isEmpty() || nb.isEmpty()) {
            return a.compareTo(b);
        }
        return Integer.compare(Integer.parseInt(na), Integer.parseInt(nb));
    }
}
