package dev.crifresh.common.attest;

import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one JSON mapper of the attestation code. Duplicate member names are rejected (a JSON document
 * whose {@code alg} or {@code sub} means different things to different parsers is not accepted) and
 * trailing content after the document is an error.
 */
final class StrictJson {
    static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private static final int MAX_MESSAGE = 160;

    private StrictJson() {
    }

    /**
     * Reads a JSON object.
     *
     * @throws IllegalArgumentException naming {@code what} when the bytes are not one JSON object
     */
    static ObjectNode readObject(byte[] json, String what) {
        JsonNode node;
        try {
            node = MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(what + " is not valid JSON: " + shortMessage(e), e);
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(what + " is not a JSON object");
        }
        return (ObjectNode) node;
    }

    static String write(JsonNode node) {
        return MAPPER.writeValueAsString(node);
    }

    private static String shortMessage(JacksonException e) {
        String message = String.valueOf(e.getOriginalMessage()).replaceAll("\\s+", " ");
        return message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE) + "...";
    }
}
