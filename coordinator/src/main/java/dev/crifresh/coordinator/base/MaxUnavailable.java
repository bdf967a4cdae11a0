package dev.crifresh.coordinator.base;

/**
 * The {@code --max-unavailable} budget: a count ({@code "2"}) or a percentage of all selected nodes
 * ({@code "25%"}), rounded down but never below one node.
 */
public record MaxUnavailable(int value, boolean percent) {

    public MaxUnavailable {
        if (value < 1 || (percent && value > 100)) {
            throw new IllegalArgumentException("must be a count ≥ 1 or a percentage between 1% and 100%");
        }
    }

    /** @throws IllegalArgumentException with a message naming what is wrong with {@code text} */
    public static MaxUnavailable parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--max-unavailable is empty (expected a count like 1 or a percentage like 25%)");
        }
        String t = text.trim();
        boolean percent = t.endsWith("%");
        String digits = percent ? t.substring(0, t.length() - 1).trim() : t;
        int value;
        try {
            value = Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--max-unavailable '" + text + "' is not a count like 1 or a percentage like 25%");
        }
        try {
            return new MaxUnavailable(value, percent);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--max-unavailable '" + text + "' " + e.getMessage());
        }
    }

    /** How many of {@code selectedNodes} may be unavailable at once. */
    public int budget(int selectedNodes) {
        int n = percent ? (int) ((long) selectedNodes * value / 100) : value;
        return Math.max(1, n);
    }

    @Override
    public String toString() {
        return percent ? value + "%" : Integer.toString(value);
    }
}
