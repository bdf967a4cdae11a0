package dev.crifresh.common.registry;

/**
 * Which credential a pull sends cannot be told: the message says why, naming keys, hosts and paths, never a
 * credential.
 */
final class PullDoubt extends Exception {
    PullDoubt(String message) {
        super(message, null, false, false);
    }
}
