package dev.crifresh.coordinator.rollout.api;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * How bad a failed Kubernetes call is (pure), after Strimzi's roller: a retryable failure is retried with
 * backoff while the Lease is held; a conflict means "read again and decide again"; a fatal one fails the step
 * that sent it. There is no separate "run-fatal" kind: the run stops at its first failed node anyway, and a
 * 401/403 is caught before any node is touched by the pre-flight access review.
 */
enum ApiFailure {
    /** 5xx, 429, 408, timeouts, connection refused or reset: the call may succeed when tried again. */
    RETRYABLE,
    /** 409: the object changed since it was read; read it again and decide again. */
    CONFLICT,
    /**
     * Not worth trying again: the object is gone (404, 410), the request was invalid for it (400, 422), it is not
     * allowed (401, 403), or an unexpected error.
     */
    FATAL;

    static ApiFailure of(Throwable t) {
        // The answer's code wherever it is: an informer's start wraps the client exception in its own.
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() > 0) {
                return ofCode(k.getCode());
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IOException || c instanceof TimeoutException
                    || c.getClass().getSimpleName().contains("Timeout")) {
                return RETRYABLE;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        // A client exception without an HTTP code is a request that got no answer (fabric8 wraps the cause).
        return t instanceof KubernetesClientException ? RETRYABLE : FATAL;
    }

    /**
     * Like {@link #of}, for a JSON Patch guarded by {@code test} ops: its refused guard (422) means, like a 409, that the
     * object changed since the read the patch was decided on.
     */
    static ApiFailure ofGuardedPatch(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() == 422) {
                return CONFLICT;
            }
        }
        return of(t);
    }

    static ApiFailure ofCode(int code) {
        if (code == 409) {
            return CONFLICT;
        }
        if (code == 408 || code == 429 || code >= 500) {
            return RETRYABLE;
        }
        return FATAL;
    }
}
