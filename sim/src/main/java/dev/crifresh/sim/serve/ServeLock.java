package dev.crifresh.sim.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One {@code serve} per directory: an OS file lock on {@code serve.lock} beside the kubeconfig, held while the
 * cluster runs. The kernel drops the lock when the process dies, so a crashed serve never blocks the next one
 * (no stale pid to guess about); the file's text (pid, API URL) only names the running serve in the refusal.
 */
final class ServeLock implements AutoCloseable {
    static final String FILE = "serve.lock";

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private ServeLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the directory's lock.
     *
     * @throws ServeUsageException naming the running serve (pid, API server) when another one holds it
     */
    static ServeLock acquire(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException sameProcess) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            String holder;
            try {
                holder = Files.readString(file, StandardCharsets.UTF_8).strip().replace('\n', ' ');
            } finally {
                channel.close();
            }
            throw new ServeUsageException("another crifresh-sim serve (" + (holder.isEmpty() ? "starting" : holder) + ") uses " + dir
                    + "; stop it first, or give this one its own directory: --kubeconfig OTHER-DIR/kubeconfig");
        }
        ServeLock held = new ServeLock(file, channel, lock);
        held.describe("pid " + ProcessHandle.current().pid() + ", starting");
        return held;
    }

    /** What the refusal of a second serve shows: this process and, once known, its API server. */
    void describe(String text) throws IOException {
        byte[] bytes = (text + "\n").getBytes(StandardCharsets.UTF_8);
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(bytes), 0);
        channel.force(false);
    }

    /** Removes the file while still holding the lock, then lets it go. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // the lock still goes with the channel
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
