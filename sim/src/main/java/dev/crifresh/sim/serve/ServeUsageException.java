package dev.crifresh.sim.serve;

/** {@code serve} cannot start because of something the user chose (a busy port, a directory another serve uses): exit 2. */
public final class ServeUsageException extends RuntimeException {
    public ServeUsageException(String message) {
        super(message);
    }

    public ServeUsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
