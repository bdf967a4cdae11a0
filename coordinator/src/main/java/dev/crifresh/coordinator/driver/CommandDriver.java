package dev.crifresh.coordinator.driver;

import dev.crifresh.coordinator.base.InternalIps;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;

/** Runs a {@link CommandTemplate} per node; {@code {ip}} requires a present and unique InternalIP. */
public final class CommandDriver implements RebootDriver {
    private final CommandTemplate template;
    private final ProcessRunner runner;

    public CommandDriver(CommandTemplate template, ProcessRunner runner) {
        this.template = template;
        this.runner = runner;
    }

    @Override
    public void check(Node node, List<Node> selected) {
        if (template.usesIp()) {
            InternalIps.requireUnique(node, selected);
        }
    }

    @Override
    public void reboot(Node node) throws Exception {
        runner.run(argv(node));
    }

    public List<String> argv(Node node) {
        String ip = template.usesIp() ? InternalIps.require(node) : InternalIps.of(node);
        return template.argv(node.getMetadata().getName(), ip);
    }
}
