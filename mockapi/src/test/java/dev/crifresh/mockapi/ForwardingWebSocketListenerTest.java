package dev.crifresh.mockapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.mockwebserver.http.WebSocketListener;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForwardingWebSocketListenerTest {
    /**
     * fabric8's listener has empty default callbacks: one it adds in a later version and the base does not
     * forward would be dropped silently by every watch wrapper. Deprecated callbacks are left to the base:
     * the server calls none of them (binary frames arrive as {@code byte[]}, not {@code ByteString}).
     */
    @Test
    void forwardsEveryCallbackOfFabric8sListener() {
        List<Method> callbacks = Arrays.stream(WebSocketListener.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !m.isAnnotationPresent(Deprecated.class)).toList();
        assertTrue(callbacks.size() >= 8, "fabric8's WebSocketListener changed: " + callbacks);
        List<String> missing = callbacks.stream().filter(m -> !overridden(m)).map(Method::toString).toList();
        assertEquals(List.of(), missing, "callbacks ForwardingWebSocketListener does not forward");
    }

    private static boolean overridden(Method m) {
        try {
            ForwardingWebSocketListener.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
