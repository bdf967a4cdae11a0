package dev.crifresh.agent.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/** Reads {@code <procRoot>/sys/kernel/random/boot_id}, the value kubelet reports as {@code nodeInfo.bootID}. */
public final class BootIdReader {
    private static final Pattern UUID = Pattern.compile("[0-9a-fA-F-]{8,64}");

    private final Path file;

    public BootIdReader(Path procRoot) {
        this.file = procRoot.resolve("sys/kernel/random/boot_id");
    }

    public String read() throws IOException {
        String id = Files.readString(file).trim();
        if (!UUID.matcher(id).matches()) {
            throw new IOException(file + ": not a boot id");
        }
        return id;
    }
}
