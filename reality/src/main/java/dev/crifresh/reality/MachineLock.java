package dev.crifresh.reality;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One machine-wide advisory lock ({@code /tmp/crifresh-reality.lock}) held while this JVM runs any real
 * containerd with the CRI command line: the agent finds containerd by its command line in /proc, so two
 * suites on one machine (parallel builds, two worktrees) would each see the other's containerd. Acquired by
 * the first {@link RealContainerd#start}, released when the last one of this JVM has stopped.
 */
public final class MachineLock {
    private static final Path FILE = Path.of(System.getProperty("java.io.tmpdir"), "crifresh-reality.lock");
    private static FileChannel channel;
    private static FileLock lock;
    private static int holders;

    private MachineLock() {
    }

    /** Blocks until this JVM holds the lock (reentrant: counted). */
    public static synchronized void acquire() {
        if (holders++ > 0) {
            return;
        }
        try {
            channel = FileChannel.open(FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lock = channel.tryLock();
            if (lock == null) {
                System.out.println("reality harness: waiting for another suite's containerd on this machine (" + FILE + ")");
                lock = channel.lock();
            }
        } catch (IOException e) {
            holders--;
            throw new UncheckedIOException("cannot lock " + FILE, e);
        }
    }

    public static synchronized void release() {
        if (holders == 0 || --holders > 0) {
            return;
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unlock " + FILE, e);
        } finally {
            lock = null;
            channel = null;
        }
    }
}
