package dev.crifresh.common.attest;

/**
 * What the verifier checks an attestation against, taken from the Node object: its name, UID,
 * {@code status.nodeInfo.bootID} and the status of the condition that carried the token.
 */
public record ExpectedNode(String name, String uid, String bootId, String conditionStatus) {
}
