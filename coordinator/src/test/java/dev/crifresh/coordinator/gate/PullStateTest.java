package dev.crifresh.coordinator.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.crifresh.coordinator.gate.pull.PullState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class PullStateTest {
    private static Pod pod(ContainerStatusBuilder status) {
        return new PodBuilder().withNewStatus().withPhase("Pending").addToContainerStatuses(status.withName("p").build())
                .endStatus().build();
    }

    private static ContainerStatusBuilder waiting(String reason) {
        return new ContainerStatusBuilder().withState(new ContainerStateBuilder().withNewWaiting().withReason(reason)
                .withMessage("m").endWaiting().build());
    }

    @Test
    void pullErrorsFailWithTheKubeletsReasonAndMessage() {
        for (String reason : new String[] {"ErrImagePull", "ImagePullBackOff", "InvalidImageName"}) {
            PullState s = PullState.of(pod(waiting(reason)));
            assertEquals(PullState.Kind.FAILED, s.kind(), reason);
            assertEquals(reason, s.reason());
            assertEquals("m", s.message());
        }
    }

    @Test
    void theProofIsThePullNotTheCommand() {
        assertEquals(PullState.Kind.PULLED, PullState.of(pod(waiting("RunContainerError"))).kind(),
                "an image without `true` fails after the pull");
        assertEquals(PullState.Kind.PULLED, PullState.of(pod(new ContainerStatusBuilder().withState(new ContainerStateBuilder()
                .withNewTerminated().withExitCode(127).endTerminated().build()))).kind());
        assertEquals(PullState.Kind.PULLED, PullState.of(pod(waiting("ContainerCreating").withImageID("ghcr.io/x@sha256:ab"))).kind());
    }

    @Test
    void nothingYetIsWaiting() {
        assertEquals(PullState.Kind.WAITING, PullState.of(null).kind());
        assertEquals(PullState.Kind.WAITING, PullState.of(new Pod()).kind());
        assertEquals(PullState.Kind.WAITING, PullState.of(pod(waiting("ContainerCreating"))).kind());
    }
}
