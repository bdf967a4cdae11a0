package dev.crifresh.coordinator.cli;

import dev.crifresh.common.text.IoErrors;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Finds the cluster the way kubectl does — {@code --kubeconfig}, else every file of {@code $KUBECONFIG}, else
 * {@code ~/.kube/config}, else the in-cluster service account — but strictly: a missing file, an unknown
 * context, or a context whose cluster or user is not defined is a usage error naming the context and the
 * file, never a silent fall-back to another cluster. Kubeconfigs are merged as kubectl merges them: the
 * first file that sets a name (context, cluster, user, current-context) wins.
 */
final class KubeconfigResolver {
    static final String IN_CLUSTER = "in-cluster service account";

    private final Map<String, String> env;
    private final Path home;

    KubeconfigResolver(Map<String, String> env, Path home) {
        this.env = env;
        this.home = home;
    }

    static KubeconfigResolver system() {
        return new KubeconfigResolver(System.getenv(), Path.of(System.getProperty("user.home")));
    }

    ClusterTarget resolve(Path flagFile, String flagContext) {
        List<Path> files = new ArrayList<>();
        String source;
        String env = this.env.get("KUBECONFIG");
        Path homeConfig = home.resolve(".kube").resolve("config");
        if (flagFile != null) {
            requireReadable(flagFile, "--kubeconfig " + flagFile + " is not a readable file");
            files.add(flagFile);
            source = "--kubeconfig " + flagFile;
        } else if (env != null && !env.isBlank()) {
            for (String part : env.split(File.pathSeparator)) {
                if (!part.isBlank()) {
                    Path file = Path.of(part);
                    requireReadable(file, "$KUBECONFIG names " + file + ", which is not a readable file");
                    files.add(file);
                }
            }
            source = "$KUBECONFIG " + env;
        } else if (Files.isRegularFile(homeConfig)) {
            files.add(homeConfig);
            source = "~/.kube/config " + homeConfig;
        } else {
            return inCluster(flagContext, homeConfig);
        }
        String where = files.stream().map(Path::toString).collect(Collectors.joining(", "));
        Merged merged = merge(files);
        String context = flagContext != null ? flagContext : merged.currentContext;
        if (context == null || context.isEmpty()) {
            throw new UsageException(where + " sets no current-context: pass --context NAME (contexts: " + names(merged.contexts) + ")");
        }
        JsonNode ctx = merged.contexts.get(context);
        if (ctx == null) {
            throw new UsageException((flagContext != null ? "--context " + context + ": no such context in " + where
                    : where + ": current-context " + context + " is not defined") + " (contexts: " + names(merged.contexts) + ")");
        }
        String clusterName = ctx.path("context").path("cluster").asString("");
        JsonNode cluster = merged.clusters.get(clusterName);
        if (cluster == null) {
            throw new UsageException("context " + context + " in " + where + " names cluster '" + clusterName + "', which is not defined there");
        }
        String server = cluster.path("cluster").path("server").asString("");
        if (server.isEmpty()) {
            throw new UsageException("cluster " + clusterName + " in " + where + " (context " + context + ") has no server");
        }
        String userName = ctx.path("context").path("user").asString("");
        if (!userName.isEmpty() && !merged.users.containsKey(userName)) {
            throw new UsageException("context " + context + " in " + where + " names user '" + userName + "', which is not defined there");
        }
        Config config;
        try {
            config = files.size() == 1 ? Config.fromKubeconfig(context, files.get(0).toFile()) : Config.autoConfigure(context);
        } catch (RuntimeException e) {
            throw new UsageException(where + " cannot be used (context " + context + "): " + e.getMessage(), e);
        }
        if (config.getCurrentContext() == null || !context.equals(config.getCurrentContext().getName())) {
            // never talk to a cluster other than the one named
            throw new UsageException(where + ": the Kubernetes client did not select context " + context);
        }
        return new ClusterTarget(config, url(config), context, source);
    }

    private ClusterTarget inCluster(String flagContext, Path homeConfig) {
        String host = env.get("KUBERNETES_SERVICE_HOST");
        if (host == null || host.isBlank()) {
            throw new UsageException("no cluster configured: pass --kubeconfig FILE or set KUBECONFIG ($KUBECONFIG is unset, there is no "
                    + homeConfig + ", and this is not a pod with a service account)");
        }
        if (flagContext != null) {
            throw new UsageException("--context " + flagContext + " needs a kubeconfig, but there is none ($KUBECONFIG is unset, no "
                    + homeConfig + "); in a pod, the service account is used");
        }
        Config config = Config.autoConfigure(null);
        return new ClusterTarget(config, url(config), null, IN_CLUSTER);
    }

    /** The server as the kubeconfig writes it (fabric8 adds a trailing slash). */
    private static String url(Config config) {
        String url = config.getMasterUrl();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static void requireReadable(Path file, String message) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new UsageException(message);
        }
    }

    private static String names(Map<String, JsonNode> byName) {
        return byName.isEmpty() ? "none" : String.join(", ", byName.keySet());
    }

    private record Merged(String currentContext, Map<String, JsonNode> contexts, Map<String, JsonNode> clusters,
                          Map<String, JsonNode> users) {
    }

    private static Merged merge(List<Path> files) {
        YAMLMapper yaml = YAMLMapper.builder().build();
        String current = null;
        Map<String, JsonNode> contexts = new LinkedHashMap<>();
        Map<String, JsonNode> clusters = new LinkedHashMap<>();
        Map<String, JsonNode> users = new LinkedHashMap<>();
        for (Path file : files) {
            JsonNode root;
            try {
                root = yaml.readTree(Files.readString(file, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UsageException("cannot read the kubeconfig " + file + ": " + IoErrors.describe(e), e);
            } catch (JacksonException e) {
                throw new UsageException(file + " is not a kubeconfig: " + e.getOriginalMessage(), e);
            }
            if (root == null || root.isMissingNode() || root.isNull()) {
                continue; // an empty file adds nothing, as with kubectl
            }
            if (!root.isObject()) {
                throw new UsageException(file + " is not a kubeconfig: not a YAML mapping");
            }
            String fileCurrent = root.path("current-context").asString("");
            if (current == null && !fileCurrent.isEmpty()) {
                current = fileCurrent;
            }
            collect(root.path("contexts"), contexts);
            collect(root.path("clusters"), clusters);
            collect(root.path("users"), users);
        }
        return new Merged(current, contexts, clusters, users);
    }

    private static void collect(JsonNode list, Map<String, JsonNode> into) {
        for (JsonNode entry : list) {
            String name = entry.path("name").asString("");
            if (!name.isEmpty()) {
                into.putIfAbsent(name, entry);
            }
        }
    }
}
