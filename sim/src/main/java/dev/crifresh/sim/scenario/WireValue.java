package dev.crifresh.sim.scenario;

/** An enum constant as it is spelled in a scenario file. */
public interface WireValue {
    String wire();
}
