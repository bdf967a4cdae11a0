package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.crifresh.coordinator.fixture.OneOfEach;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RunEffect#dispatch} routes every permitted effect type to a method of its own; an unknown one fails loudly. */
class RunEffectTest {
    @Test
    void everyPermittedEffectTypeReachesItsOwnHandlerMethod() {
        List<RunEffect> effects = OneOfEach.of(RunEffect.class, type -> type == List.class ? List.of() : null);
        assertEquals(RunEffect.class.getPermittedSubclasses().length, effects.size());
        List<String> calls = new ArrayList<>();
        RunEffect.Handler recording = (RunEffect.Handler) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RunEffect.Handler.class}, (proxy, method, args) -> {
                    // each method takes exactly its own type: the name and the argument's type must agree
                    assertEquals(method.getParameterTypes()[0], args[0].getClass(), method.getName());
                    calls.add(args[0].getClass().getSimpleName());
                    return null;
                });
        for (RunEffect effect : effects) {
            RunEffect.dispatch(effect, recording);
        }
        assertEquals(effects.stream().map(e -> e.getClass().getSimpleName()).toList(), calls,
                "each effect reached exactly one handler method");
        assertEquals(effects.size(), RunEffect.Handler.class.getDeclaredMethods().length, "one method per type");
    }

    @Test
    void aNullEffectFailsLoudly() {
        assertThrows(IllegalStateException.class, () -> RunEffect.dispatch(null, null));
    }
}
