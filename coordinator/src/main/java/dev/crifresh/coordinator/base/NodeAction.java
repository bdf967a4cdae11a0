package dev.crifresh.coordinator.base;

/**
 * What {@code --action} means for one stale or unknown node (pure): {@link Action#REBOOT} or {@link Action#NONE}
 * (wait for containerd to restart itself). {@code auto} resolves per node from its Talos version; anything that is
 * not a Talos release known to restart containerd on a config change is rebooted.
 *
 * @param action REBOOT or NONE, never AUTO
 * @param why    one phrase naming what the decision rests on
 */
public record NodeAction(Action action, String why) {
    /**
     * What the decision reads of a node: the OS image it reports ({@code status.nodeInfo.osImage}, e.g.
     * {@code Talos (v1.14.1)}), or null. {@code classify.NodeFacts} is one; base stays below the classification.
     */
    public interface Subject {
        String osImage();
    }

    /** The report's and plan's word for an action: {@code reboot} or {@code wait-restart}. */
    public String wire() {
        return wire(action);
    }

    public static String wire(Action resolved) {
        return resolved == Action.REBOOT ? "reboot" : "wait-restart";
    }

    public static NodeAction forNode(Action action, Subject node) {
        return switch (action) {
            case REBOOT -> new NodeAction(Action.REBOOT, "--action reboot");
            case NONE -> new NodeAction(Action.NONE, "--action none");
            case AUTO -> auto(node == null ? null : node.osImage());
        };
    }

    static NodeAction auto(String osImage) {
        TalosVersion v = TalosVersion.parse(osImage);
        if (v == null) {
            return new NodeAction(Action.REBOOT, osImage == null || osImage.isBlank() ? "no Talos version reported"
                    : "not a Talos version crifresh can read: '" + printable(osImage) + "'");
        }
        return v.restartsContainerdOnConfigChange()
                ? new NodeAction(Action.NONE, "Talos " + v + " restarts containerd itself on a config change")
                : new NodeAction(Action.REBOOT, "Talos " + v + " does not restart containerd on a config change");
    }

    private static String printable(String s) {
        String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
