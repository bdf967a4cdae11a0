package dev.crifresh.coordinator.kube;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handler of exceptions that no handler of a Vert.x caught, for a Vert.x that runs fabric8's client.
 *
 * <p>fabric8 8.0's {@code Vertx5HttpRequest.consumeBytes} fails a request's response promise from two places: the
 * body write's failure ({@code tryFail}) and the response future's failure ({@code onFailure(promise::fail)}). When a
 * connection closes while a request is still being sent, Vert.x fails the write first and then the response, and the
 * second failure throws {@code IllegalStateException: Promise already completed} into the event loop, where Vert.x
 * logs it with its stack trace as an unhandled exception. The request's own failure (the closed connection) has by
 * then reached the caller, which retries or reports it; the second failure says nothing more and is logged at debug
 * in one line. Every other exception is logged as Vert.x logs it: at error, with its trace.
 */
public final class UnhandledErrors implements Handler<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(UnhandledErrors.class);

    private UnhandledErrors() {
    }

    /** Installs the handler on {@code vertx} and returns it. */
    public static Vertx on(Vertx vertx) {
        vertx.exceptionHandler(new UnhandledErrors());
        return vertx;
    }

    @Override
    public void handle(Throwable e) {
        if (isSecondFailureOfAClosedRequest(e)) {
            LOG.debug("a request on a closed connection was failed a second time (fabric8 Vertx5HttpRequest); its first failure reached the caller");
        } else {
            LOG.error("Unhandled exception", e);
        }
    }

    /**
     * Whether {@code e} is an already-failed promise failed again by an HTTP client request's response future: the
     * exception thrown by {@code Promise.fail} on a completed promise, called while Vert.x fails a request's
     * response ({@code HttpClientRequestBase.fail}).
     */
    static boolean isSecondFailureOfAClosedRequest(Throwable e) {
        if (!(e instanceof IllegalStateException) || !"Promise already completed".equals(e.getMessage())) {
            return false;
        }
        StackTraceElement[] stack = e.getStackTrace();
        if (stack.length == 0 || !stack[0].getClassName().equals("io.vertx.core.Promise") || !stack[0].getMethodName().equals("fail")) {
            return false;
        }
        for (StackTraceElement frame : stack) {
            if (frame.getClassName().equals("io.vertx.core.http.impl.HttpClientRequestBase") && frame.getMethodName().equals("fail")) {
                return true;
            }
        }
        return false;
    }
}
