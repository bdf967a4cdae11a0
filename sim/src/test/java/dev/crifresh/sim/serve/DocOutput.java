package dev.crifresh.sim.serve;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The outputs a doc shows under its {@code $ } commands, and the comparison of a real output with them: what
 * differs on every run (times, ages, ids, ports, pids, durations, the working directory, the signed
 * attestation, column widths) is masked on both sides, everything else must be equal, line by line.
 */
final class DocOutput {
    /** Where the docs show the working directory of the walkthrough. */
    static final String DOC_WORK_DIR = "/home/me/crifresh";

    /** One documented command and the lines the doc shows as its output. */
    record Shown(String command, List<String> lines) {
    }

    private record Mask(Pattern pattern, String replacement) {
    }

    private static final List<Mask> MASKS = List.of(
            // the signed attestation in a condition message (the doc cuts it short)
            mask("attestation=\\S+", "attestation=<jws>"),
            mask("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?(?:Z|[+-]\\d\\d:\\d\\d)", "<time>"),
            mask("(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d\\d \\w{3} \\d{4} \\d\\d:\\d\\d:\\d\\d [+-]\\d{4}", "<time>"),
            mask("run-[0-9a-f]{8}", "run-<id>"),
            mask("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>"),
            mask("\\b[0-9a-f]{32,}\\b", "<hex>"),
            mask("127\\.0\\.0\\.1:\\d+", "127.0.0.1:<port>"),
            mask("(?<=\\s):\\d{2,5}\\b", ":<port>"),
            mask("\\(pid \\d+\\)", "(pid <pid>)"),
            // a duration in a condition message: "3453794.204 s (40 d)", "2.950 s", "50 ms"
            mask("-?\\d+(?:\\.\\d+)? m?s(?: \\(-?[\\d.]+ (?:d|h|min|s)\\))?(?=[\\s,;)]|$)", "<duration>"),
            // kubectl's AGE cells and "after 2m10s"-style elapsed times
            mask("(?<=\\s|^)\\d+(?:ms|[smhd])(?:\\d+[smh])?(?=\\s|$)", "<age>"));

    private DocOutput() {
    }

    private static Mask mask(String regex, String replacement) {
        return new Mask(Pattern.compile(regex), replacement);
    }

    /**
     * Every {@code $ } command (and {@code ^C}) between {@code begin} and {@code end}, with the lines below it up
     * to the next command or the end of its code block.
     */
    static List<Shown> shown(String doc, String begin, String end) {
        int from = doc.indexOf(begin);
        int to = doc.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("no section between " + begin + " and " + end);
        }
        List<Shown> shown = new ArrayList<>();
        String command = null;
        List<String> lines = new ArrayList<>();
        boolean inBlock = false;
        for (String line : doc.substring(from, to).split("\n", -1)) {
            if (line.startsWith("```")) {
                if (inBlock && command != null) {
                    shown.add(new Shown(command, List.copyOf(lines)));
                    command = null;
                }
                inBlock = !inBlock;
                continue;
            }
            if (!inBlock) {
                continue;
            }
            if (line.startsWith("$ ") || line.trim().equals("^C")) {
                if (command != null) {
                    shown.add(new Shown(command, List.copyOf(lines)));
                }
                command = line.startsWith("$ ") ? line.substring(2).trim() : "^C";
                lines.clear();
            } else if (command != null) {
                lines.add(line);
            }
        }
        return shown;
    }

    /** One line with what differs on every run masked and runs of blanks made one (column widths vary). */
    static String normalize(String line, String workDir) {
        String s = workDir == null ? line : line.replace(workDir, DOC_WORK_DIR);
        for (Mask m : MASKS) {
            s = m.pattern().matcher(s).replaceAll(m.replacement());
        }
        return s.replaceAll("\\s+", " ").strip();
    }

    static List<String> normalize(List<String> lines, String workDir) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String n = normalize(line, workDir);
            if (!n.isEmpty()) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Null when the real output shows what the doc shows, else a message naming the first difference.
     * {@code anyOrder}: lines written by work running in parallel (a rollout's progress) are compared as a
     * set: every documented line must be printed and every printed line documented, in any order and number.
     */
    static String difference(Shown doc, List<String> actual, String workDir, boolean anyOrder) {
        return difference(doc, actual, workDir, anyOrder, UnaryOperator.identity());
    }

    /** As above, with {@code also} applied to both sides' normalized lines (a mask only one command needs). */
    static String difference(Shown doc, List<String> actual, String workDir, boolean anyOrder,
                             UnaryOperator<String> also) {
        List<String> want = normalize(doc.lines(), null).stream().map(also).toList();
        List<String> got = normalize(actual, workDir).stream().map(also).toList();
        if (anyOrder) {
            List<String> missing = want.stream().filter(l -> !got.contains(l)).distinct().toList();
            List<String> extra = got.stream().filter(l -> !want.contains(l)).distinct().toList();
            if (missing.isEmpty() && extra.isEmpty()) {
                return null;
            }
            return "$ " + doc.command() + "\n  documented but not printed: " + missing
                    + "\n  printed but not documented: " + extra;
        }
        for (int i = 0; i < Math.max(want.size(), got.size()); i++) {
            String w = i < want.size() ? want.get(i) : "<nothing>";
            String g = i < got.size() ? got.get(i) : "<nothing>";
            if (!w.equals(g)) {
                return "$ " + doc.command() + "\n  line " + (i + 1) + " documented: " + w + "\n  line " + (i + 1)
                        + " printed:    " + g;
            }
        }
        return null;
    }
}
