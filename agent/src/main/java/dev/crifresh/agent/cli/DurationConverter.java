package dev.crifresh.agent.cli;

import dev.crifresh.common.text.DurationText;
import java.time.Duration;
import picocli.CommandLine;

/** picocli's view of {@link DurationText}: a bad value is a type-conversion error naming it. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return DurationText.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
