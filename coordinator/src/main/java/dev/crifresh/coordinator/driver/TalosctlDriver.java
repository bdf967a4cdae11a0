package dev.crifresh.coordinator.driver;

import dev.crifresh.coordinator.base.InternalIps;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code talosctl [--talosconfig F] -n <InternalIP> reboot --wait=false}. */
public final class TalosctlDriver implements RebootDriver {
    private final String talosctl;
    private final Path talosconfig;
    private final ProcessRunner runner;

    /** @param talosconfig null = talosctl's own default ({@code $TALOSCONFIG} or ~/.talos/config) */
    public TalosctlDriver(String talosctl, Path talosconfig, ProcessRunner runner) {
        this.talosctl = talosctl;
        this.talosconfig = talosconfig;
        this.runner = runner;
    }

    @Override
    public void check(Node node, List<Node> selected) {
        InternalIps.requireUnique(node, selected);
    }

    @Override
    public void reboot(Node node) throws Exception {
        runner.run(argv(node));
    }

    public List<String> argv(Node node) {
        String ip = InternalIps.require(node);
        List<String> argv = new ArrayList<>();
        argv.add(talosctl);
        if (talosconfig != null) {
            argv.add("--talosconfig");
            argv.add(talosconfig.toString());
        }
        argv.add("-n");
        argv.add(ip);
        argv.add("reboot");
        argv.add("--wait=false");
        return argv;
    }
}
