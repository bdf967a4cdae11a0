package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.crifresh.coordinator.fixture.OneOfEach;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RunEffect#dispatch} routes every permitted effect type to a method of its own; an unknown one fails loudly. */
class RunEffectTest {
    @Test
    void everyPermittedEffectTypeReachesItsOwnHandlerMethod() {
        OneOfEach.assertEachReachesItsOwnMethod(RunEffect.class, RunEffect.Handler.class,
                type -> type == List.class ? List.of() : null, RunEffect::dispatch);
    }

    @Test
    void aNullEffectFailsLoudly() {
        assertThrows(IllegalStateException.class, () -> RunEffect.dispatch(null, null));
    }
}
