package dev.crifresh.common.registry;

/**
 * Internal short-cut out of a tree walk; the parsers turn it into {@link RegistryParse.Failed}. The message
 * names where the problem is, never a credential value. No stack trace: it is never shown.
 */
final class InvalidRegistryConfig extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidRegistryConfig(String message) {
        super(message, null, false, false);
    }
}
