package dev.crifresh.agent.cri;

import java.util.Map;

/** Where the CRI runtime's {@code Status(verbose=true).info} comes from: the socket, or a test's stand-in. */
public interface CriStatusSource extends AutoCloseable {
    /** Blocking. */
    Map<String, String> statusInfo() throws CriStatusException;

    @Override
    void close();
}
