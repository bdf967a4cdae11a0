package dev.crifresh.agent.cri;

/** The CRI status could not be read; the message names the socket and why, never a credential. */
public final class CriStatusException extends Exception {
    public CriStatusException(String message) {
        super(message);
    }
}
