package dev.crifresh.mockapi.fault;

/**
 * One request the mock API server answered, as {@link FaultDispatcher} recorded it.
 *
 * @param nanos  {@link System#nanoTime()} when the request reached the dispatcher
 * @param client the value of {@link FaultDispatcher#CLIENT_HEADER}, or {@code ""} when the request had none
 * @param method HTTP method
 * @param path   path with query
 * @param code   the status the dispatcher answered with (101 for a watch upgrade; 410 for a watch answered as
 *               expired by {@link ClientFaults#gone})
 * @param faulted whether a fault rule produced or changed the answer
 */
public record Exchange(long nanos, String client, String method, String path, int code, boolean faulted) {
}
