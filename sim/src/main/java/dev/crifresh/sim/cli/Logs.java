package dev.crifresh.sim.cli;

/**
 * The agents and fabric8 log through slf4j-simple; in the simulator their INFO lines would bury the
 * coordinator's progress. Must run before the first logger is created.
 */
final class Logs {
    private static final String LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    private Logs() {
    }

    static void configure(boolean verbose) {
        if (System.getProperty(LEVEL) == null) {
            System.setProperty(LEVEL, verbose ? "info" : "warn");
        }
    }
}
