package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.base.CoordinatorSettings;

/** Builds {@link CoordinatorSettings} from the shared flags; bad values become usage errors. */
final class Settings {
    private Settings() {
    }

    static CoordinatorSettings of(ReportOptions o) {
        try {
            return CoordinatorSettings.defaults()
                    .withRegistry(o.registry)
                    .withNodeSelector(o.nodeSelector)
                    .withMarkerAnnotation(o.markerAnnotation)
                    .withMarkerCurrentValue(o.markerCurrentValue)
                    .withStaleTaint(o.staleTaint)
                    .withApiOutageBudget(o.apiOutageBudget)
                    .withAllowNoAttestations(o.allowNoAttestations);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }
}
