package dev.crifresh.coordinator.rollout.view;

/**
 * Orders two resource versions of one object (pure). Kubernetes calls them opaque, but every API server
 * (etcd's revision) and fabric8's mock issue increasing integers; a value that is not one is treated as
 * newer, so an unknown format never freezes the run's view.
 */
final class ResourceVersions {
    private ResourceVersions() {
    }

    /** Whether {@code candidate} is older than {@code current}: a view at {@code candidate} would go back in time. */
    static boolean older(String candidate, String current) {
        if (candidate == null || current == null) {
            return false;
        }
        try {
            return Long.parseLong(candidate) < Long.parseLong(current);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
