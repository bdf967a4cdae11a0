package dev.crifresh.coordinator.rollout.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.ManualTicker;
import dev.crifresh.coordinator.fixture.Unused;
import dev.crifresh.coordinator.kube.PodOps;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A roll's ports have no defaults: leaving out any one of them fails where the ports are built, naming it. */
class RollPortsTest {
    @Test
    void everyPortIsRequired() throws Exception {
        RollPorts complete = DrainPorts.of(CoordinatorSettings.defaults(), Unused.of(PodOps.class), new ManualTicker());
        RecordComponent[] components = RollPorts.class.getRecordComponents();
        Constructor<RollPorts> canonical = RollPorts.class.getDeclaredConstructor(
                Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
        for (int missing = 0; missing < components.length; missing++) {
            Object[] args = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
                args[i] = i == missing ? null : components[i].getAccessor().invoke(complete);
            }
            InvocationTargetException e = assertThrows(InvocationTargetException.class, () -> canonical.newInstance(args));
            NullPointerException npe = assertInstanceOf(NullPointerException.class, e.getCause());
            assertEquals(components[missing].getName(), npe.getMessage());
        }
    }
}
