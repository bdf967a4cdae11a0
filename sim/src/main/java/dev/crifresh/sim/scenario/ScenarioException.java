package dev.crifresh.sim.scenario;

/** A scenario that cannot be used; the message is one line naming the field (and the node). */
public class ScenarioException extends Exception {
    public ScenarioException(String message) {
        super(message);
    }
}
