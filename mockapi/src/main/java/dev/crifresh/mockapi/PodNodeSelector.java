package dev.crifresh.mockapi;

import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The field selector {@code spec.nodeName=<node>} on a pod collection, which fabric8's mock store cannot
 * evaluate (it only knows {@code metadata.name} and {@code metadata.namespace}; any other field matches
 * nothing). A watch is served without that requirement and its events filtered to the node's pods, as
 * kube-apiserver does ({@link FieldSelector} does the same for lists).
 *
 * @param node     the node the selector names
 * @param stripped the request path without the requirement
 */
record PodNodeSelector(String node, String stripped) {
    private static final Pattern POD_COLLECTION = Pattern.compile("/api/v1/(namespaces/[^/?]+/)?pods(\\?.*)?");
    private static final String FIELD = "spec.nodeName";
    private static final ObjectMapper JSON = Fabric8Json.MAPPER;

    /** The selector in {@code path}, or null when the path is not a pod collection selected by node. */
    static PodNodeSelector of(String path) {
        if (path == null || !POD_COLLECTION.matcher(path).matches() || path.indexOf('?') < 0) {
            return null;
        }
        int q = path.indexOf('?');
        String node = null;
        List<String> params = new ArrayList<>();
        for (String param : path.substring(q + 1).split("&")) {
            if (!param.startsWith("fieldSelector=")) {
                params.add(param);
                continue;
            }
            List<String> kept = new ArrayList<>();
            String value = URLDecoder.decode(param.substring("fieldSelector=".length()), StandardCharsets.UTF_8);
            for (String requirement : value.split(",")) {
                String r = requirement.trim();
                if (r.startsWith(FIELD + "==")) {
                    node = r.substring(FIELD.length() + 2);
                } else if (r.startsWith(FIELD + "=")) {
                    node = r.substring(FIELD.length() + 1);
                } else if (!r.isEmpty()) {
                    kept.add(r);
                }
            }
            if (!kept.isEmpty()) {
                params.add("fieldSelector=" + URLEncoder.encode(String.join(",", kept), StandardCharsets.UTF_8));
            }
        }
        if (node == null) {
            return null;
        }
        String base = path.substring(0, q);
        return new PodNodeSelector(node, params.isEmpty() ? base : base + "?" + String.join("&", params));
    }

    /** A watch that forwards only the events about the node's pods. */
    WebSocketListener filterWatch(WebSocketListener delegate) {
        return new ForwardingWebSocketListener(delegate) {
            @Override
            public void onOpen(WebSocket webSocket, Response response) {
                delegate.onOpen(new Filtering(webSocket), response);
            }
        };
    }

    /** Drops watch events about pods on other nodes; everything else goes through. */
    private final class Filtering implements WebSocket {
        private final WebSocket socket;

        Filtering(WebSocket socket) {
            this.socket = socket;
        }

        @Override
        public RecordedRequest request() {
            return socket.request();
        }

        @Override
        public boolean send(String text) {
            return forward(text) ? socket.send(text) : true;
        }

        @Override
        public boolean send(byte[] bytes) {
            return forward(new String(bytes, StandardCharsets.UTF_8)) ? socket.send(bytes) : true;
        }

        @Override
        public boolean close(int code, String reason) {
            return socket.close(code, reason);
        }

        /** Events about a pod (added, modified, deleted) only for the node's pods; bookmarks and errors always. */
        private boolean forward(String event) {
            EventNode read = EventNode.of(event);
            return read.forAll() || node.equals(read.node());
        }
    }

    /**
     * What a watch event says for the filter: whether it goes to every watch (not about a pod, or not JSON), else
     * the node of its pod (null when unbound). The store sends the same event text to every pod watch, so the
     * last events' answers are kept: one parse per event, not one per watch.
     */
    record EventNode(boolean forAll, String node) {
        private static final int KEPT = 256;
        private static final Map<String, EventNode> RECENT = new LinkedHashMap<>(KEPT * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, EventNode> eldest) {
                return size() > KEPT;
            }
        };

        static EventNode of(String event) {
            synchronized (RECENT) {
                EventNode known = RECENT.get(event);
                if (known != null) {
                    return known;
                }
            }
            EventNode read = parse(event);
            synchronized (RECENT) {
                RECENT.put(event, read);
            }
            return read;
        }

        private static EventNode parse(String event) {
            JsonNode e;
            try {
                e = JSON.readTree(event);
            } catch (RuntimeException notJson) {
                return new EventNode(true, null);
            }
            String type = e.path("type").asString("");
            boolean aboutAPod = type.equals("ADDED") || type.equals("MODIFIED") || type.equals("DELETED");
            JsonNode pod = e.get("object");
            return new EventNode(!aboutAPod, pod == null ? null : pod.path("spec").path("nodeName").asString(null));
        }
    }
}
