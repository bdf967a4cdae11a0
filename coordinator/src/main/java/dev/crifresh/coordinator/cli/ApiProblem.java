package dev.crifresh.coordinator.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * What went wrong talking to the API server, told apart from the exception fabric8 raised: the server could
 * not be reached (worth retrying for a while), TLS failed, it refused the credentials (401), or it refused
 * the request (403: a missing RBAC permission). Pure: no I/O.
 *
 * @param kind   the class of failure
 * @param detail the cause in a few words ({@code connection refused}, the TLS error, the server's message)
 */
record ApiProblem(Kind kind, String detail) {
    enum Kind { UNREACHABLE, TLS, UNAUTHORIZED, FORBIDDEN, OTHER }

    static ApiProblem of(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException) {
                return new ApiProblem(Kind.TLS, "TLS handshake failed: " + message(t));
            }
            if (t instanceof ConnectException) {
                String m = message(t).toLowerCase(Locale.ROOT);
                return new ApiProblem(Kind.UNREACHABLE, m.contains("timed out") ? "connection timed out" : m.contains("refused")
                        ? "connection refused" : message(t));
            }
            if (t instanceof UnknownHostException) {
                return new ApiProblem(Kind.UNREACHABLE, "unknown host " + message(t));
            }
            if (t instanceof NoRouteToHostException) {
                return new ApiProblem(Kind.UNREACHABLE, "no route to host");
            }
            if (t instanceof SocketTimeoutException || t instanceof TimeoutException) {
                return new ApiProblem(Kind.UNREACHABLE, "no answer in time");
            }
        }
        if (e instanceof KubernetesClientException k) {
            String status = k.getStatus() == null || k.getStatus().getMessage() == null ? null : k.getStatus().getMessage();
            if (k.getCode() == 401) {
                return new ApiProblem(Kind.UNAUTHORIZED, status == null ? "Unauthorized" : status);
            }
            if (k.getCode() == 403) {
                return new ApiProblem(Kind.FORBIDDEN, status == null ? "Forbidden" : status);
            }
        }
        return new ApiProblem(Kind.OTHER, firstLine(e.getMessage()));
    }

    private static String message(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : firstLine(t.getMessage());
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "(no message)";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
