package dev.crifresh.common.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The project's version, filtered into a resource at build time. The agent, the coordinator, the simulator,
 * both images and the Helm chart are released together under this one version ({@code --version} prints it).
 */
public final class CrifreshVersion {
    private static final String RESOURCE = "version.properties";

    private CrifreshVersion() {
    }

    public static String current() {
        try (InputStream in = CrifreshVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE + " next to " + CrifreshVersion.class);
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version");
            if (v == null || v.isBlank() || v.contains("${")) {
                throw new IllegalStateException(RESOURCE + " was not filtered by the build: " + v);
            }
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The release this build belongs to: the version without {@code -SNAPSHOT} (what the chart and the images carry). */
    public static String release() {
        String v = current();
        return v.endsWith("-SNAPSHOT") ? v.substring(0, v.length() - "-SNAPSHOT".length()) : v;
    }
}
