package dev.crifresh.coordinator.gate.pull;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Set;

/**
 * What a probe pod's status says about its image pull. Pure.
 * <ul>
 *   <li>{@code PULLED}: the container ran or runs (any exit code), or has an image id, or failed only after
 *       the pull (creating or starting the container) — the proof is the pull, not the probe's command;</li>
 *   <li>{@code FAILED}: the kubelet reports a pull error ({@code ErrImagePull}, {@code ImagePullBackOff}, …),
 *       with its message;</li>
 *   <li>{@code WAITING}: nothing yet.</li>
 * </ul>
 */
public record PullState(Kind kind, String reason, String message) {
    public enum Kind { WAITING, PULLED, FAILED }

    static final Set<String> PULL_ERRORS = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
            "ErrImageNeverPull", "RegistryUnavailable", "SignatureValidationFailed", "ImageInspectError");
    static final Set<String> AFTER_PULL = Set.of("CreateContainerError", "CreateContainerConfigError",
            "RunContainerError", "StartError", "CrashLoopBackOff");

    public static PullState of(Pod pod) {
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return new PullState(Kind.WAITING, null, null);
        }
        for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
            var state = s.getState();
            if (state != null && state.getWaiting() != null && PULL_ERRORS.contains(state.getWaiting().getReason())) {
                return new PullState(Kind.FAILED, state.getWaiting().getReason(), state.getWaiting().getMessage());
            }
            boolean ran = state != null && (state.getRunning() != null || state.getTerminated() != null);
            boolean hasImage = s.getImageID() != null && !s.getImageID().isBlank();
            boolean failedAfterPull = state != null && state.getWaiting() != null
                    && AFTER_PULL.contains(state.getWaiting().getReason());
            if (ran || hasImage || failedAfterPull) {
                return new PullState(Kind.PULLED, null, null);
            }
        }
        return new PullState(Kind.WAITING, null, null);
    }
}
