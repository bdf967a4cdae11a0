package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.base.DrainRules;
import java.util.Map;

/**
 * Where the coordinator runs: {@code --self-node} / {@code --self-pod} when given, else the downward API's
 * {@code NODE_NAME}, {@code POD_NAMESPACE} and {@code POD_NAME} (the chart's Job sets them). Pure: the environment is
 * passed in.
 */
final class SelfLocation {
    static final String NODE_NAME = "NODE_NAME";
    static final String POD_NAME = "POD_NAME";
    static final String POD_NAMESPACE = "POD_NAMESPACE";

    private SelfLocation() {
    }

    static DrainRules apply(DrainRules rules, String selfNode, String selfPod, Map<String, String> env) {
        String node = present(selfNode) ? selfNode : env.get(NODE_NAME);
        String pod = selfPod;
        if (!present(pod) && present(env.get(POD_NAME)) && present(env.get(POD_NAMESPACE))) {
            pod = env.get(POD_NAMESPACE) + "/" + env.get(POD_NAME);
        }
        if (present(pod) && pod.split("/", -1).length != 2) {
            throw new UsageException("--self-pod '" + pod + "' must be NAMESPACE/NAME");
        }
        return rules.withSelf(node, pod);
    }

    private static boolean present(String s) {
        return s != null && !s.isBlank();
    }
}
