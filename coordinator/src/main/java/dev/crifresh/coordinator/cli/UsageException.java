package dev.crifresh.coordinator.cli;

/** A mistake in the command line or its inputs; reported as one line, exit code 2. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
