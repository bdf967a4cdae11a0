package dev.crifresh.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The agent's version, filtered into a resource by Maven at build time. */
public final class AgentVersion {
    private static final String RESOURCE = "version.properties";

    private AgentVersion() {
    }

    public static String current() {
        try (InputStream in = AgentVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE + " next to " + AgentVersion.class);
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
