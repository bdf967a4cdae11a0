package dev.crifresh.agent.host;

/**
 * Parses {@code /proc/<pid>/stat}. Field 2 ({@code comm}) is in parentheses and may itself contain
 * spaces and parentheses, so fields are counted after the <em>last</em> {@code ')'}.
 */
public final class ProcStat {
    /** Linux' USER_HZ: the unit of {@code starttime}, fixed at 100 by the kernel ABI. */
    public static final long CLK_TCK = 100;

    private static final int STARTTIME_FIELD = 22;
    /** Field 3 ({@code state}) is the first one after {@code ") "}. */
    private static final int FIRST_FIELD_AFTER_COMM = 3;

    private ProcStat() {
    }

    /**
     * Field 22, {@code starttime}: clock ticks after boot at which the process started.
     *
     * @throws IllegalArgumentException when the line is not a stat line
     */
    public static long startTicks(String statLine) {
        int close = statLine.lastIndexOf(')');
        if (close < 0 || statLine.indexOf('(') < 0 || statLine.indexOf('(') > close) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: no (comm)");
        }
        String[] fields = statLine.substring(close + 1).trim().split("\\s+");
        int index = STARTTIME_FIELD - FIRST_FIELD_AFTER_COMM;
        if (fields.length <= index) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + (fields.length + 2) + " fields");
        }
        try {
            long ticks = Long.parseLong(fields[index]);
            if (ticks < 0) {
                throw new IllegalArgumentException("negative starttime " + ticks);
            }
            return ticks;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("starttime is not a number: '" + fields[index] + "'");
        }
    }

    /**
     * Field 2, {@code comm}: the executable's base name (at most 15 bytes), without the parentheses.
     *
     * @throws IllegalArgumentException when the line is not a stat line
     */
    public static String comm(String statLine) {
        int open = statLine.indexOf('(');
        int close = statLine.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: no (comm)");
        }
        return statLine.substring(open + 1, close);
    }
}
