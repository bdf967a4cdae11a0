package dev.crifresh.sim.scenario;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Talos version a simulated node runs ({@code talosVersion}): {@code v<major>.<minor>.<patch>} with an
 * optional pre-release or build suffix, as Talos tags its releases. The kubelet reports it in the Node's
 * {@code status.nodeInfo.osImage} as {@code Talos (<version>)}.
 */
public record TalosVersion(String text, int major, int minor) {
    private static final Pattern VERSION = Pattern.compile("v(\\d{1,4})\\.(\\d{1,4})\\.\\d{1,4}([-+][0-9A-Za-z.+-]{1,64})?");
    public static final TalosVersion DEFAULT = parse("v1.13.4");

    /** @throws IllegalArgumentException when {@code text} is not such a version */
    public static TalosVersion parse(String text) {
        Matcher m = VERSION.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a Talos version (e.g. v1.13.4)");
        }
        return new TalosVersion(text, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }

    /** What the kubelet reports in {@code status.nodeInfo.osImage}. */
    public String osImage() {
        return "Talos (" + text + ")";
    }

    /** Talos 1.14 and later restart the CRI containerd themselves when its config changes. */
    public boolean restartsContainerdOnConfigChange() {
        return major > 1 || (major == 1 && minor >= 14);
    }
}
