package dev.crifresh.mockapi.reliability;

/**
 * One row of a fault-injection suite's summary: the fault, where it was injected, and what happened,
 * as the case observed it on the final API state.
 *
 * @param id     short stable id of the case (e.g. {@code A3})
 * @param fault  the fault in words
 * @param point  the named injection point
 * @param result what the case observed; {@code FAILED: ...} when an assertion failed
 * @param passed whether every assertion of the case held
 * @param human  whether a human must act after the case's last run: {@code no}, or {@code yes: <the fact to check>};
 *               null in a table without that column
 */
public record FaultRow(String id, String fault, String point, String result, boolean passed, String human) {
    public FaultRow(String id, String fault, String point, String result, boolean passed) {
        this(id, fault, point, result, passed, null);
    }

    /** The row as a Markdown table line; pipes in the text are escaped. */
    String markdown() {
        return "| " + id + " | " + cell(fault) + " | " + cell(point) + " | " + cell(result) + " |"
                + (human == null ? "" : " " + cell(human) + " |");
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
