package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.driver.RebootDriver;
import io.fabric8.kubernetes.api.model.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The reboot driver's check of every node it will reboot, before any node is touched. */
final class DriverCheck {
    private DriverCheck() {
    }

    /**
     * Runs {@link RebootDriver#check} for each node on a worker thread (drivers may block).
     *
     * @param toCheck  the nodes to check, by name, in rollout order
     * @param selected every selected node (a driver may compare them, e.g. for a unique InternalIP)
     * @return each node the driver refused, with its reason, in rollout order; empty when all pass
     */
    static Future<Map<String, String>> problems(Context context, RebootDriver driver, Map<String, Node> toCheck,
                                                List<Node> selected) {
        return context.executeBlocking(() -> {
            Map<String, String> problems = new LinkedHashMap<>();
            for (Map.Entry<String, Node> e : toCheck.entrySet()) {
                String name = e.getKey();
                try {
                    driver.check(e.getValue(), selected);
                } catch (Exception ex) {
                    problems.put(name, ex.getMessage() == null ? ex.toString() : ex.getMessage());
                }
            }
            return problems;
        }, false);
    }
}
