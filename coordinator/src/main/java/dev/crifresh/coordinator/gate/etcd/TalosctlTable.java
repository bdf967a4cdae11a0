package dev.crifresh.coordinator.gate.etcd;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a table talosctl prints with Go's tabwriter (padding 3): a header line of upper-case column names,
 * then one line per row. Values may contain single spaces ({@code 17 MB}, {@code 4.7 MB (27.45%)}) and a
 * cell may be empty, so a row is first split on runs of three or more spaces; when that does not give one
 * value per column (an empty cell in the middle), the header's column offsets slice the row instead.
 * Lines before the header (warnings) are ignored. Pure.
 */
final class TalosctlTable {
    private static final Pattern GAP = Pattern.compile(" {3,}|\t+");

    private TalosctlTable() {
    }

    /**
     * @param first the first column's name, which identifies the header line
     * @return the rows as column name → value (trimmed), in order; empty when there is no header
     */
    static List<Map<String, String>> parse(String text, String first) {
        List<String> lines = text.lines().toList();
        int header = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(first + " ") || lines.get(i).startsWith(first + "\t")) {
                header = i;
                break;
            }
        }
        List<Map<String, String>> rows = new ArrayList<>();
        if (header < 0) {
            return rows;
        }
        String head = lines.get(header);
        String[] names = GAP.split(head.strip());
        int[] starts = new int[names.length];
        int from = 0;
        for (int i = 0; i < names.length; i++) {
            starts[i] = head.indexOf(names[i], from);
            from = starts[i] + names[i].length();
        }
        for (int l = header + 1; l < lines.size(); l++) {
            String line = lines.get(l);
            if (line.isBlank()) {
                continue;
            }
            String[] cells = GAP.split(line.strip(), -1);
            Map<String, String> row = new LinkedHashMap<>();
            if (cells.length == names.length) {
                for (int i = 0; i < names.length; i++) {
                    row.put(names[i], cells[i].strip());
                }
            } else {
                for (int i = 0; i < names.length; i++) {
                    int start = Math.min(starts[i], line.length());
                    int end = i + 1 < names.length ? Math.min(starts[i + 1], line.length()) : line.length();
                    row.put(names[i], line.substring(start, Math.max(start, end)).strip());
                }
            }
            rows.add(row);
        }
        return rows;
    }
}
