package dev.crifresh.coordinator.base;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Talos version a Node reports in {@code status.nodeInfo.osImage}: Talos renders it as {@code Talos (v1.14.1)}
 * (a pre-release as {@code Talos (v1.15.0-alpha.1)}).
 *
 * @param preRelease the part after {@code -} (e.g. {@code alpha.1}), or null for a release
 */
public record TalosVersion(int major, int minor, int patch, String preRelease) {
    private static final Pattern OS_IMAGE = Pattern.compile(
            "Talos \\(v(0|[1-9]\\d{0,8})\\.(0|[1-9]\\d{0,8})\\.(0|[1-9]\\d{0,8})(?:-([0-9A-Za-z.-]+))?\\)");

    /** The version in an osImage, or null when the image is not Talos or its version cannot be read. */
    public static TalosVersion parse(String osImage) {
        if (osImage == null) {
            return null;
        }
        Matcher m = OS_IMAGE.matcher(osImage.strip());
        if (!m.matches()) {
            return null;
        }
        return new TalosVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                m.group(4));
    }

    /**
     * Whether this release restarts containerd itself when its CRI config changes: Talos 1.14 and later.
     * A pre-release of 1.14 does not count (the restart landed during 1.14's development and no pre-release
     * can be told to carry it: fail toward rebooting); a pre-release of 1.15 or later was cut after 1.14 and does.
     */
    public boolean restartsContainerdOnConfigChange() {
        if (major != 1) {
            return major > 1;
        }
        if (minor != 14) {
            return minor > 14;
        }
        return preRelease == null;
    }

    @Override
    public String toString() {
        return "v" + major + "." + minor + "." + patch + (preRelease == null ? "" : "-" + preRelease);
    }
}
