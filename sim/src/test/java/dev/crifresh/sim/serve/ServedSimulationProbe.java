package dev.crifresh.sim.serve;

import java.io.IOException;
import java.nio.file.Path;

/** For tests outside this package: the files and the directory lock of a serve at {@code url}, without its cluster. */
public final class ServedSimulationProbe implements AutoCloseable {
    private final ServeFiles files;

    public ServedSimulationProbe(Path kubeconfig, String url) throws IOException {
        files = new ServeFiles(kubeconfig, null);
        files.lock();
        files.lockServing(url);
        files.writeKubeconfig(url);
    }

    @Override
    public void close() {
        files.close();
    }
}
