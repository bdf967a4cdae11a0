package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import java.util.function.UnaryOperator;

/** Builds {@link CoordinatorSettings} from the shared flags and a command's own; bad values become usage errors. */
final class Settings {
    private Settings() {
    }

    /** The shared flags, then the command's ({@code command}); a bad value is a usage error naming the flag. */
    static CoordinatorSettings of(ReportOptions o, UnaryOperator<CoordinatorSettings.Builder> command) {
        try {
            return command.apply(CoordinatorSettings.builder()
                    .registry(o.registry)
                    .nodeSelector(o.nodeSelector)
                    .markerAnnotation(o.markerAnnotation)
                    .markerCurrentValue(o.markerCurrentValue)
                    .staleTaint(o.staleTaint)
                    .apiOutageBudget(o.apiOutageBudget)
                    .allowNoAttestations(o.allowNoAttestations)).build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }
}
