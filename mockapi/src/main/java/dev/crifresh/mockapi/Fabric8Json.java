package dev.crifresh.mockapi;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import tools.jackson.databind.ObjectMapper;

/**
 * The JSON mapper fabric8's mock server serialises with (what the deprecated
 * {@code Serialization.jsonMapper()} returns: a default {@link KubernetesSerialization}'s mapper). fabric8
 * 8.0 keeps that mapper's getter package-private, so it is taken here as the serialisation configures it.
 */
final class Fabric8Json extends KubernetesSerialization {
    static final ObjectMapper MAPPER = new Fabric8Json().configured;

    /** Set by {@link #configureMapper}, which the super constructor calls: no initialiser may reset it. */
    private ObjectMapper configured;

    private Fabric8Json() {
    }

    @Override
    protected ObjectMapper configureMapper(ObjectMapper mapper) {
        configured = super.configureMapper(mapper);
        return configured;
    }
}
