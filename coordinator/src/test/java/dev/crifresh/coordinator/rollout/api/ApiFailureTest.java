package dev.crifresh.coordinator.rollout.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Retryable, conflict, fatal: how a failed call is handled (after Strimzi's roller). */
class ApiFailureTest {
    private static KubernetesClientException code(int code) {
        return new KubernetesClientException("x", code, null);
    }

    @Test
    void serverErrorsThrottlingAndTimeoutsAreRetryable() {
        for (int c : new int[] {500, 502, 503, 504, 429, 408}) {
            assertEquals(ApiFailure.RETRYABLE, ApiFailure.of(code(c)), "HTTP " + c);
        }
    }

    @Test
    void requestsThatGotNoAnswerAreRetryable() {
        assertEquals(ApiFailure.RETRYABLE, ApiFailure.of(new KubernetesClientException("reset", new SocketException("Connection reset"))));
        assertEquals(ApiFailure.RETRYABLE, ApiFailure.of(new KubernetesClientException("refused", new ConnectException("refused"))));
        assertEquals(ApiFailure.RETRYABLE, ApiFailure.of(new KubernetesClientException("timeout", new TimeoutException())));
        assertEquals(ApiFailure.RETRYABLE, ApiFailure.of(new KubernetesClientException("no answer")));
    }

    @Test
    void theCodeCountsWhereverTheClientExceptionIsWrapped() {
        assertEquals(ApiFailure.RETRYABLE, ApiFailure.of(new java.util.concurrent.CompletionException(code(503))));
        assertEquals(ApiFailure.FATAL, ApiFailure.of(new RuntimeException(code(403))));
    }

    @Test
    void aConflictMeansReadAgain() {
        assertEquals(ApiFailure.CONFLICT, ApiFailure.of(code(409)));
    }

    @Test
    void forbiddenAndFactsAboutTheObjectAreNotRetried() {
        assertEquals(ApiFailure.FATAL, ApiFailure.of(code(401)));
        assertEquals(ApiFailure.FATAL, ApiFailure.of(code(403)));
        assertEquals(ApiFailure.FATAL, ApiFailure.of(code(404)));
        assertEquals(ApiFailure.FATAL, ApiFailure.of(code(422)));
        assertEquals(ApiFailure.FATAL, ApiFailure.of(code(400)));
        assertEquals(ApiFailure.FATAL, ApiFailure.of(new IllegalStateException("a bug")));
    }
}
