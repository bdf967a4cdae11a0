package dev.crifresh.coordinator.cli;

/** The API server could not be reached within {@code --connect-timeout}: exit 5, one line naming the server and the cause. */
final class ApiUnreachableException extends RuntimeException {
    ApiUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
