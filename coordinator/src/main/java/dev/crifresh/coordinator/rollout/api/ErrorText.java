package dev.crifresh.coordinator.rollout.api;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** How the rollout words a failure in progress lines and report details. */
public final class ErrorText {
    private ErrorText() {
    }

    /** The API server's own message (with its HTTP code) when there is one, else the exception's message. */
    public static String message(Throwable t) {
        if (t instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null) {
            return k.getCode() + " " + k.getStatus().getMessage();
        }
        String m = t.getMessage();
        if (m == null && t.getCause() != null && t.getCause() != t) {
            return message(t.getCause()); // fabric8 wraps a failed request's cause without a message of its own
        }
        return m == null ? t.getClass().getSimpleName() : m;
    }
}
