package dev.crifresh.mockapi;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Server-side printing: a {@code meta.k8s.io/v1} Table of a list or object, as kube-apiserver returns it
 * when the client asks for {@code application/json;as=Table;v=v1;g=meta.k8s.io} — what {@code kubectl get}
 * does for its default output. fabric8's mock ignores the request and returns the plain objects, which
 * kubectl 1.32 then cannot print in columns. Nodes get kube-apiserver's node columns (NAME, STATUS, ROLES,
 * AGE, VERSION; {@code -o wide} adds INTERNAL-IP, EXTERNAL-IP, OS-IMAGE, KERNEL-VERSION,
 * CONTAINER-RUNTIME), pods NAME, READY, STATUS, RESTARTS, AGE (wide: IP, NODE), everything else the
 * default NAME, CREATED AT. Each row carries the object's metadata, as with the default
 * {@code includeObject=Metadata}.
 */
final class TableView {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private record Column(String name, String type, String format, int priority) {
    }

    private TableView() {
    }

    /** Whether the request's Accept header asks for a Table first. */
    static boolean wanted(String accept) {
        return accept != null && accept.contains("as=Table") && accept.contains("g=meta.k8s.io");
    }

    /** The Table of {@code body} (a List or a single object), or null when it is neither (a Status, say). */
    static String of(String body, Instant now) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JacksonException e) {
            return null;
        }
        if (root == null || !root.isObject()) {
            return null;
        }
        List<JsonNode> items = new ArrayList<>();
        if (root.has("items") && root.get("items").isArray()) {
            root.get("items").forEach(items::add);
        } else if (root.has("metadata") && root.has("kind") && !"Status".equals(root.get("kind").asString())) {
            items.add(root);
        } else {
            return null;
        }
        String kind = items.isEmpty() ? listKind(root) : items.get(0).path("kind").asString();
        List<Column> columns = columns(kind);
        ObjectNode table = JSON.createObjectNode();
        table.put("kind", "Table");
        table.put("apiVersion", "meta.k8s.io/v1");
        ObjectNode metadata = table.putObject("metadata");
        String rv = root.path("metadata").path("resourceVersion").asString("");
        if (!rv.isEmpty()) {
            metadata.put("resourceVersion", rv);
        }
        ArrayNode definitions = table.putArray("columnDefinitions");
        for (Column c : columns) {
            ObjectNode d = definitions.addObject();
            d.put("name", c.name());
            d.put("type", c.type());
            d.put("format", c.format());
            d.put("description", "");
            d.put("priority", c.priority());
        }
        ArrayNode rows = table.putArray("rows");
        for (JsonNode item : items) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            for (Object cell : cells(kind, item, now)) {
                if (cell instanceof Integer i) {
                    cells.add(i);
                } else {
                    cells.add(String.valueOf(cell));
                }
            }
            ObjectNode object = row.putObject("object");
            object.put("kind", "PartialObjectMetadata");
            object.put("apiVersion", "meta.k8s.io/v1");
            object.set("metadata", item.path("metadata").deepCopy());
        }
        return table.toString();
    }

    private static String listKind(JsonNode root) {
        String kind = root.path("kind").asString("");
        return kind.endsWith("List") ? kind.substring(0, kind.length() - "List".length()) : kind;
    }

    private static List<Column> columns(String kind) {
        return switch (kind) {
            case "Node" -> List.of(new Column("Name", "string", "name", 0), new Column("Status", "string", "", 0),
                    new Column("Roles", "string", "", 0), new Column("Age", "string", "", 0),
                    new Column("Version", "string", "", 0), new Column("Internal-IP", "string", "", 1),
                    new Column("External-IP", "string", "", 1), new Column("OS-Image", "string", "", 1),
                    new Column("Kernel-Version", "string", "", 1), new Column("Container-Runtime", "string", "", 1));
            case "Pod" -> List.of(new Column("Name", "string", "name", 0), new Column("Ready", "string", "", 0),
                    new Column("Status", "string", "", 0), new Column("Restarts", "string", "", 0),
                    new Column("Age", "string", "", 0), new Column("IP", "string", "", 1),
                    new Column("Node", "string", "", 1));
            default -> List.of(new Column("Name", "string", "name", 0), new Column("Created At", "date", "", 0));
        };
    }

    private static List<Object> cells(String kind, JsonNode item, Instant now) {
        JsonNode metadata = item.path("metadata");
        String name = metadata.path("name").asString();
        String age = age(metadata.path("creationTimestamp").asString(""), now);
        return switch (kind) {
            case "Node" -> List.of(name, nodeStatus(item), roles(metadata.path("labels")), age,
                    orNone(item.path("status").path("nodeInfo").path("kubeletVersion").asString("")),
                    orNone(address(item, "InternalIP")), orNone(address(item, "ExternalIP")),
                    orUnknown(item.path("status").path("nodeInfo").path("osImage").asString("")),
                    orUnknown(item.path("status").path("nodeInfo").path("kernelVersion").asString("")),
                    orUnknown(item.path("status").path("nodeInfo").path("containerRuntimeVersion").asString("")));
            case "Pod" -> {
                int containers = item.path("spec").path("containers").size();
                int ready = 0;
                int restarts = 0;
                for (JsonNode s : item.path("status").path("containerStatuses")) {
                    ready += s.path("ready").asBoolean(false) ? 1 : 0;
                    restarts += s.path("restartCount").asInt(0);
                }
                String phase = item.path("status").path("phase").asString("");
                if (item.path("status").path("containerStatuses").isEmpty() && "Running".equals(phase)) {
                    ready = containers;
                }
                yield List.of(name, ready + "/" + containers, phase.isEmpty() ? "Pending" : phase,
                        String.valueOf(restarts), age, orNone(item.path("status").path("podIP").asString("")),
                        orNone(item.path("spec").path("nodeName").asString("")));
            }
            default -> List.of(name, metadata.path("creationTimestamp").asString(""));
        };
    }

    private static String nodeStatus(JsonNode node) {
        String ready = "Unknown";
        for (JsonNode c : node.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asString())) {
                ready = "True".equals(c.path("status").asString()) ? "Ready" : "NotReady";
            }
        }
        return node.path("spec").path("unschedulable").asBoolean(false) ? ready + ",SchedulingDisabled" : ready;
    }

    private static String roles(JsonNode labels) {
        TreeSet<String> roles = new TreeSet<>();
        for (Map.Entry<String, JsonNode> label : labels.properties()) {
            String key = label.getKey();
            if (key.startsWith("node-role.kubernetes.io/") && key.length() > "node-role.kubernetes.io/".length()) {
                roles.add(key.substring("node-role.kubernetes.io/".length()));
            } else if (key.equals("kubernetes.io/role")) {
                roles.add(labels.get(key).asString());
            }
        }
        return roles.isEmpty() ? "<none>" : String.join(",", roles);
    }

    private static String address(JsonNode node, String type) {
        for (JsonNode a : node.path("status").path("addresses")) {
            if (type.equals(a.path("type").asString())) {
                return a.path("address").asString("");
            }
        }
        return "";
    }

    private static String orNone(String s) {
        return s.isEmpty() ? "<none>" : s;
    }

    private static String orUnknown(String s) {
        return s.isEmpty() ? "<unknown>" : s;
    }

    /** kube-apiserver's short age: 45s, 5m, 3h, 40d (after 2 days, 48h, ...), as in duration.HumanDuration. */
    static String age(String timestamp, Instant now) {
        if (timestamp.isEmpty()) {
            return "<unknown>";
        }
        Duration d;
        try {
            d = Duration.between(Instant.parse(timestamp), now);
        } catch (DateTimeParseException e) {
            return "<unknown>";
        }
        long s = d.getSeconds();
        if (s < 0) {
            return "<invalid>";
        }
        if (s < 60 * 2) {
            return s + "s";
        }
        long m = s / 60;
        if (m < 10) {
            long rest = s % 60;
            return rest == 0 ? m + "m" : m + "m" + rest + "s";
        }
        if (m < 60 * 3) {
            return m + "m";
        }
        long h = m / 60;
        if (h < 8) {
            long rest = m % 60;
            return rest == 0 ? h + "h" : h + "h" + rest + "m";
        }
        if (h < 48) {
            return h + "h";
        }
        if (h < 24 * 8) {
            long rest = h % 24;
            return rest == 0 ? (h / 24) + "d" : (h / 24) + "d" + rest + "h";
        }
        if (h < 24 * 365 * 2) {
            return (h / 24) + "d";
        }
        return (h / 24 / 365) + "y";
    }
}
