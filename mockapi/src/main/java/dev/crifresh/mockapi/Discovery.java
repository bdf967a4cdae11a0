package dev.crifresh.mockapi;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The discovery documents kube-apiserver serves and kubectl reads before anything else: {@code /api},
 * {@code /apis} and one resource list per group version. fabric8's mock answers
 * {@code /api} and {@code /apis} with a list of every stored object and {@code /api/v1} with an empty
 * list, so kubectl finds no resource type at all ("the server doesn't have a resource type nodes").
 * The documents list the resources crifresh and its tools use, in the legacy (unaggregated) form, which
 * kubectl falls back to when the aggregated form is not offered. ({@code /version} is the mock's own,
 * given {@link #GIT_VERSION} by {@link CrudApiServer}.)
 */
final class Discovery {
    /** The Kubernetes version the mock claims, as the simulated kubelets do. */
    static final String GIT_VERSION = "v1.34.1";

    /** One resource of a group version: plural name, kind, whether namespaced, short names, verbs. */
    record Resource(String name, String kind, boolean namespaced, List<String> shortNames, List<String> verbs) {
        static Resource of(String name, String kind, boolean namespaced, String... shortNames) {
            return new Resource(name, kind, namespaced, List.of(shortNames), FULL);
        }

        static Resource sub(String name, String kind, boolean namespaced, String... verbs) {
            return new Resource(name, kind, namespaced, List.of(), List.of(verbs));
        }
    }

    private static final List<String> FULL =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    /** Group version ("v1" for the core group) → its resources. */
    static final Map<String, List<Resource>> RESOURCES = Map.of(
            "v1", List.of(
                    Resource.of("nodes", "Node", false, "no"),
                    Resource.sub("nodes/status", "Node", false, "get", "patch", "update"),
                    Resource.of("pods", "Pod", true, "po"),
                    Resource.sub("pods/eviction", "Eviction", true, "create"),
                    Resource.sub("pods/status", "Pod", true, "get", "patch", "update"),
                    Resource.of("namespaces", "Namespace", false, "ns"),
                    Resource.of("events", "Event", true, "ev"),
                    Resource.of("secrets", "Secret", true),
                    Resource.of("configmaps", "ConfigMap", true, "cm"),
                    Resource.of("services", "Service", true, "svc"),
                    Resource.of("serviceaccounts", "ServiceAccount", true, "sa")),
            "apps/v1", List.of(
                    Resource.of("daemonsets", "DaemonSet", true, "ds"),
                    Resource.of("deployments", "Deployment", true, "deploy"),
                    Resource.of("replicasets", "ReplicaSet", true, "rs")),
            "coordination.k8s.io/v1", List.of(Resource.of("leases", "Lease", true)),
            "policy/v1", List.of(Resource.of("poddisruptionbudgets", "PodDisruptionBudget", true, "pdb")),
            "batch/v1", List.of(Resource.of("jobs", "Job", true)),
            "events.k8s.io/v1", List.of(Resource.of("events", "Event", true, "ev")));

    private Discovery() {
    }

    /** The discovery document at {@code path} (no query), if it is one. */
    static Optional<String> document(String path, String serverAddress) {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        if (p.equals("/api")) {
            return Optional.of("{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":"
                    + "[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"" + serverAddress + "\"}]}");
        }
        if (p.equals("/apis")) {
            String groups = RESOURCES.keySet().stream().filter(gv -> gv.contains("/")).sorted()
                    .map(Discovery::group).collect(Collectors.joining(","));
            return Optional.of("{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[" + groups + "]}");
        }
        String groupVersion = p.equals("/api/v1") ? "v1" : p.startsWith("/apis/") ? p.substring("/apis/".length()) : null;
        if (groupVersion == null) {
            return Optional.empty();
        }
        if (RESOURCES.containsKey(groupVersion)) {
            return Optional.of(resourceList(groupVersion));
        }
        if (!groupVersion.contains("/")) {
            String only = RESOURCES.keySet().stream().filter(gv -> gv.startsWith(groupVersion + "/")).findFirst().orElse(null);
            if (only != null) {
                return Optional.of("{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\"," + group(only).substring(1));
            }
        }
        return Optional.empty();
    }

    /**
     * The kind of the list a collection path returns ({@code PodList} for {@code /api/v1/pods} and
     * {@code /api/v1/namespaces/x/pods}), when the resource is one of {@link #RESOURCES}.
     */
    static Optional<String> listKind(String path) {
        String[] parts = path.split("/");
        String groupVersion;
        int at;
        if (parts.length >= 4 && parts[1].equals("api")) {
            groupVersion = parts[2];
            at = 3;
        } else if (parts.length >= 5 && parts[1].equals("apis")) {
            groupVersion = parts[2] + "/" + parts[3];
            at = 4;
        } else {
            return Optional.empty();
        }
        if (parts.length > at + 1 && parts[at].equals("namespaces")) {
            at += 2;
        }
        if (parts.length != at + 1) {
            return Optional.empty();
        }
        String plural = parts[at];
        return RESOURCES.getOrDefault(groupVersion, List.of()).stream().filter(r -> r.name().equals(plural))
                .findFirst().map(r -> r.kind() + "List");
    }

    private static String group(String groupVersion) {
        String name = groupVersion.substring(0, groupVersion.indexOf('/'));
        String version = groupVersion.substring(groupVersion.indexOf('/') + 1);
        String gv = "{\"groupVersion\":\"" + groupVersion + "\",\"version\":\"" + version + "\"}";
        return "{\"name\":\"" + name + "\",\"versions\":[" + gv + "],\"preferredVersion\":" + gv + "}";
    }

    private static String resourceList(String groupVersion) {
        String resources = RESOURCES.get(groupVersion).stream().map(r -> "{\"name\":\"" + r.name()
                + "\",\"singularName\":\"" + (r.name().contains("/") ? "" : singular(r.kind()))
                + "\",\"namespaced\":" + r.namespaced() + ",\"kind\":\"" + r.kind() + "\",\"verbs\":["
                + r.verbs().stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(",")) + "]"
                + (r.shortNames().isEmpty() ? "" : ",\"shortNames\":[" + r.shortNames().stream()
                        .map(s -> "\"" + s + "\"").collect(Collectors.joining(",")) + "]")
                + "}").collect(Collectors.joining(","));
        return "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" + groupVersion
                + "\",\"resources\":[" + resources + "]}";
    }

    private static String singular(String kind) {
        return kind.toLowerCase(Locale.ROOT);
    }
}
