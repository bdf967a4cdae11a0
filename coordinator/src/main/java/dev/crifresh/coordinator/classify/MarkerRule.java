package dev.crifresh.coordinator.classify;

import java.util.Map;

/**
 * Reads the machine-config marker annotation. It is reported beside the verdict and never used for a
 * decision: the marker describes machine-config state, not what containerd loaded (docs/design.md, "The failure we prevent").
 *
 * @param currentValue the value that means "current"; null means any non-empty value does
 */
public record MarkerRule(String annotation, String currentValue) {

    public boolean saysCurrent(Map<String, String> annotations) {
        String value = annotations.get(annotation);
        if (value == null || value.isBlank()) {
            return false;
        }
        return currentValue == null || currentValue.equals(value.trim());
    }
}
