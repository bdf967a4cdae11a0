package dev.crifresh.sim.scenario;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * One mapping of a scenario file, read strictly: only the allowed fields, each of the expected type.
 * Every error names the field by its path ({@code nodes[2] (worker-b).reboot}). A secret value is
 * never repeated in an error.
 */
final class YamlObject {
    /** Larger than any plausible time in a scenario (~31 years), small enough for exact arithmetic. */
    static final double MAX_SECONDS = 1e9;

    private final JsonNode node;
    private final String path;

    private YamlObject(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    /** @param path the label of this mapping in errors, "" for the document root */
    static YamlObject of(JsonNode node, String path, List<String> allowed) throws ScenarioException {
        if (node == null || !node.isObject()) {
            throw new ScenarioException((path.isEmpty() ? "the scenario" : path)
                    + ": expected a mapping, got " + describe(node));
        }
        YamlObject object = new YamlObject(node, path);
        for (String name : node.propertyNames()) {
            if (!allowed.contains(name)) {
                throw new ScenarioException(object.pathOf(name) + ": unknown field, expected one of: "
                        + String.join(", ", allowed));
            }
        }
        return object;
    }

    String pathOf(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    boolean has(String field) {
        return node.has(field);
    }

    /** The raw value, or null when the field is absent or explicitly null. */
    JsonNode raw(String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value;
    }

    String string(String field, String fallback, boolean secret) throws ScenarioException {
        JsonNode value = present(field, fallback != null);
        if (value == null) {
            return fallback;
        }
        if (!value.isString() || value.stringValue().isBlank()) {
            throw new ScenarioException(pathOf(field) + ": expected a non-empty string"
                    + (secret ? "" : ", got " + describe(value)));
        }
        return value.stringValue();
    }

    boolean bool(String field, boolean fallback) throws ScenarioException {
        JsonNode value = present(field, true);
        if (value == null) {
            return fallback;
        }
        if (!value.isBoolean()) {
            throw new ScenarioException(pathOf(field) + ": expected true or false, got " + describe(value));
        }
        return value.booleanValue();
    }

    /** Seconds with decimals, more than zero: a timeout. */
    Duration positiveSeconds(String field, Double fallback) throws ScenarioException {
        Duration d = seconds(field, fallback, false);
        if (d.isZero()) {
            throw new ScenarioException(pathOf(field) + ": must be more than 0");
        }
        return d;
    }

    /** Seconds with decimals; negative only when allowed. */
    Duration seconds(String field, Double fallback, boolean allowNegative) throws ScenarioException {
        return seconds(field, fallback, allowNegative, MAX_SECONDS);
    }

    /** Seconds with decimals, at most {@code max} either way; negative only when allowed. */
    Duration seconds(String field, Double fallback, boolean allowNegative, double max) throws ScenarioException {
        JsonNode value = present(field, fallback != null);
        if (value == null) {
            return toDuration(fallback);
        }
        if (!value.isNumber() || !Double.isFinite(value.doubleValue())) {
            throw new ScenarioException(pathOf(field) + ": expected a number of seconds, got " + describe(value));
        }
        double seconds = value.doubleValue();
        if (seconds < 0 && !allowNegative) {
            throw new ScenarioException(pathOf(field) + ": must not be negative, got " + value.asString());
        }
        if (Math.abs(seconds) > max) {
            throw new ScenarioException(pathOf(field) + ": " + value.asString() + " is out of range (at most "
                    + (long) max + " seconds)");
        }
        return toDuration(seconds);
    }

    int wholeNumber(String field, int fallback, int min, int max) throws ScenarioException {
        JsonNode value = present(field, true);
        if (value == null) {
            return fallback;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new ScenarioException(pathOf(field) + ": expected a whole number, got " + describe(value));
        }
        int number = value.intValue();
        if (number < min || number > max) {
            throw new ScenarioException(pathOf(field) + ": must be between " + min + " and " + max
                    + ", got " + number);
        }
        return number;
    }

    <E extends Enum<E> & WireValue> E choice(String field, E fallback, Class<E> type) throws ScenarioException {
        JsonNode value = present(field, true);
        if (value == null) {
            return fallback;
        }
        E[] options = type.getEnumConstants();
        String expected = Arrays.stream(options).map(WireValue::wire).collect(Collectors.joining(" | "));
        if (!value.isString()) {
            throw new ScenarioException(pathOf(field) + ": expected " + expected + ", got " + describe(value));
        }
        for (E option : options) {
            if (option.wire().equals(value.stringValue())) {
                return option;
            }
        }
        throw new ScenarioException(pathOf(field) + ": unknown value '" + value.stringValue() + "', expected "
                + expected);
    }

    /**
     * The field's value, or null when it is absent and optional. An explicit null is an error: a scenario
     * says what it means (only {@code configUpdate} accepts null, and it is read through {@link #raw}).
     */
    private JsonNode present(String field, boolean optional) throws ScenarioException {
        JsonNode value = node.get(field);
        if (value == null) {
            if (optional) {
                return null;
            }
            throw new ScenarioException(pathOf(field) + ": missing, this field is required");
        }
        if (value.isNull()) {
            throw new ScenarioException(pathOf(field) + ": no value given");
        }
        return value;
    }

    static Duration toDuration(double seconds) {
        return Duration.ofNanos(Math.round(seconds * 1_000_000_000d));
    }

    static String describe(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "nothing";
        }
        if (value.isNull()) {
            return "no value";
        }
        if (value.isObject()) {
            return "a mapping";
        }
        if (value.isArray()) {
            return "a list";
        }
        if (value.isString()) {
            return "'" + value.stringValue() + "'";
        }
        return value.asString();
    }
}
