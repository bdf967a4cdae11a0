package dev.crifresh.agent.kube;

/** A failed Kubernetes API call. {@code code} is the HTTP status, or 0 when no response arrived. */
public final class ApiException extends Exception {
    private final int code;

    public ApiException(int code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The server answered and refused the request as it stood (a failed {@code test}, a conflict, a validation error). */
    public boolean rejected() {
        return code == 409 || code == 422 || code == 400 || code == 500;
    }
}
