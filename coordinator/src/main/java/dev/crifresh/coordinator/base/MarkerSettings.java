package dev.crifresh.coordinator.base;

/**
 * The machine-config marker, reported and never trusted; read by the classifier.
 *
 * @param annotation   the marker annotation ({@code --marker-annotation})
 * @param currentValue the marker value that means "current"; null = any non-empty value ({@code --marker-current-value})
 */
public record MarkerSettings(String annotation, String currentValue) {
    public MarkerSettings {
        SettingsChecks.require(annotation != null && !annotation.isBlank(), "--marker-annotation is empty");
        if (currentValue != null && currentValue.isEmpty()) {
            currentValue = null;
        }
    }
}
