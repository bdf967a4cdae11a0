package dev.crifresh.common.attest;

/** A key or key-set file that is not what it should be; the message names what is wrong, never key bytes. */
public class KeyFormatException extends Exception {
    public KeyFormatException(String message) {
        super(message);
    }

    public KeyFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
