package dev.crifresh.mockapi;

import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

/**
 * A watch listener that hands every callback to a delegate; a subclass overrides only the callbacks it
 * filters or moves. fabric8's {@link WebSocketListener} is a class with empty defaults, so a wrapper that
 * forgot a callback would silently drop it: every one is forwarded here, in one place. The deprecated
 * {@code onMessage(WebSocket, ByteString)} is not: the server never calls it (binary frames arrive as
 * {@code byte[]}), and its default hands the text to {@link #onMessage(WebSocket, String)}, which is.
 */
public abstract class ForwardingWebSocketListener extends WebSocketListener {
    protected final WebSocketListener delegate;

    protected ForwardingWebSocketListener(WebSocketListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onBeforeAccept(WebSocket webSocket, Response response) {
        delegate.onBeforeAccept(webSocket, response);
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
        delegate.onOpen(webSocket, response);
    }

    @Override
    public void onMessage(WebSocket webSocket, String text) {
        delegate.onMessage(webSocket, text);
    }

    @Override
    public void onMessage(WebSocket webSocket, byte[] bytes) {
        delegate.onMessage(webSocket, bytes);
    }

    @Override
    public void onPing(WebSocket webSocket, byte[] bytes) {
        delegate.onPing(webSocket, bytes);
    }

    @Override
    public void onClosing(WebSocket webSocket, int code, String reason) {
        delegate.onClosing(webSocket, code, reason);
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
        delegate.onClosed(webSocket, code, reason);
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable failure, Response response) {
        delegate.onFailure(webSocket, failure, response);
    }
}
