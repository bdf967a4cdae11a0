package dev.crifresh.sim.serve;

import java.nio.file.Path;

/**
 * A separate process holding a serve directory's lock as a running {@code serve} does, until its stdin closes or
 * it is killed: {@code java ServeLockHolder DIR URL}. Prints {@code locked} once it holds it.
 */
public final class ServeLockHolder {
    private ServeLockHolder() {
    }

    public static void main(String[] args) throws Exception {
        ServeFiles files = new ServeFiles(Path.of(args[0]).resolve("kubeconfig"), null);
        files.lock();
        files.lockServing(args[1]);
        files.writeKubeconfig(args[1]);
        System.out.println("locked");
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold until stdin closes
        }
        files.close();
    }
}
