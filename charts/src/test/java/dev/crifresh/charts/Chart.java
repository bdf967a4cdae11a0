package dev.crifresh.charts;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Renders charts/crifresh with Helm's own library (helm-java) and parses the result.
 *
 * <p>helm-java's {@code template} returns the release manifest only, without hook resources (the
 * Helm CLI prints both). To assert on the keys-init hook and the coordinator's hook Job, renders go
 * through a copy of the chart in which the key {@code helm.sh/hook:} is renamed to {@link #HOOK_KEY}:
 * Helm then treats those objects as ordinary manifests, everything else is the chart byte for byte,
 * and tests read the hook phases from the renamed annotation.
 */
final class Chart {

    static final Path SOURCE = Path.of("crifresh").toAbsolutePath();
    static final String RELEASE = "crifresh";
    static final String NAMESPACE = "crifresh";
    static final String HOOK_KEY = "test.crifresh.dev/hook";

    private static Path hooksAsManifests;

    private Chart() {
    }

    /** A render with the values files given (relative to src/test/resources/values) and --set pairs. */
    static Rendered render(Map<String, Object> sets, String... valuesFiles) {
        return new Rendered(template(hooksAsManifests(), sets, valuesFiles));
    }

    static Rendered render(String... valuesFiles) {
        return render(Map.of(), valuesFiles);
    }

    /** The real chart's manifest, as Helm applies it outside of hooks. */
    static Rendered renderWithoutHooks(Map<String, Object> sets) {
        return new Rendered(template(SOURCE, sets));
    }

    static String template(Path chart, Map<String, Object> sets, String... valuesFiles) {
        TemplateCommand command = new Helm(chart).template().withName(RELEASE).withNamespace(NAMESPACE);
        for (String file : valuesFiles) {
            command = command.withValuesFile(Path.of("src/test/resources/values", file).toAbsolutePath());
        }
        for (Map.Entry<String, Object> set : new LinkedHashMap<>(sets).entrySet()) {
            command = command.set(set.getKey(), set.getValue());
        }
        return command.call();
    }

    static synchronized Path hooksAsManifests() {
        if (hooksAsManifests == null) {
            try {
                Path copy = Files.createTempDirectory("crifresh-chart-");
                copy.toFile().deleteOnExit();
                Path target = copy.resolve("crifresh");
                try (Stream<Path> files = Files.walk(SOURCE)) {
                    for (Path source : (Iterable<Path>) files::iterator) {
                        Path to = target.resolve(SOURCE.relativize(source).toString());
                        if (Files.isDirectory(source)) {
                            Files.createDirectories(to);
                        } else if (source.getParent().endsWith("templates")) {
                            String text = Files.readString(source, StandardCharsets.UTF_8);
                            Files.writeString(to, text.replace("helm.sh/hook:", HOOK_KEY + ":"), StandardCharsets.UTF_8);
                        } else {
                            Files.copy(source, to);
                        }
                        to.toFile().deleteOnExit();
                    }
                }
                hooksAsManifests = target;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return hooksAsManifests;
    }
}
