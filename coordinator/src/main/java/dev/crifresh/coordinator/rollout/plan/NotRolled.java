package dev.crifresh.coordinator.rollout.plan;

import dev.crifresh.coordinator.base.DrainRules;
import dev.crifresh.coordinator.classify.NodeFacts;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes to reboot that this run leaves alone before touching them (pure): the node the coordinator runs on (its
 * reboot would end the run half-way), and nodes whose drain would lose pods ({@link DrainSelection#refused}) without
 * {@code --force} / {@code --delete-emptydir-data}. Each is reported failed with why; the others are rolled, and the
 * run fails at its end (exit 1: a stale node is left).
 */
public final class NotRolled {
    private NotRolled() {
    }

    /**
     * @param reboots the nodes this run reboots itself (not those it resumes)
     * @param pods    each node's pods as listed now; a node missing here (its pods could not be listed) is rolled, and
     *                its drain applies the same rules
     * @return each node not rolled, with the report's detail, in the order of {@code reboots}
     */
    public static Map<String, String> decide(List<NodeFacts> reboots, Map<String, List<Pod>> pods, DrainRules rules) {
        Map<String, String> out = new LinkedHashMap<>();
        for (NodeFacts f : reboots) {
            if (f.name().equals(rules.selfNode())) {
                out.put(f.name(), selfDetail(rules));
                continue;
            }
            List<Pod> on = pods.get(f.name());
            if (on == null) {
                continue;
            }
            List<DrainSelection.Refused> refused = DrainSelection.refused(on, rules);
            if (!refused.isEmpty()) {
                out.put(f.name(), DrainSelection.notDrainable(refused));
            }
        }
        return out;
    }

    static String selfDetail(DrainRules rules) {
        return "not rolled: the coordinator runs on it" + (rules.selfPod() == null ? "" : " (pod " + rules.selfPod() + ")")
                + "; run it from another node to roll this one";
    }
}
