package dev.crifresh.coordinator.cli;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** A {@code NS/NAME} reference to a Secret, from a flag. */
public record SecretRef(String flag, String namespace, String name) {

    public static SecretRef parse(String flag, String value) {
        int slash = value.indexOf('/');
        if (slash <= 0 || slash == value.length() - 1 || value.indexOf('/', slash + 1) >= 0) {
            throw new UsageException(flag + " '" + value + "' must be NAMESPACE/NAME");
        }
        return new SecretRef(flag, value.substring(0, slash), value.substring(slash + 1));
    }

    public Secret read(KubernetesClient client) {
        Secret secret;
        try {
            secret = client.secrets().inNamespace(namespace).withName(name).get();
        } catch (KubernetesClientException e) {
            throw new UsageException(flag + " " + this + ": cannot read the Secret (" + e.getCode() + " "
                    + (e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage()) + ")", e);
        }
        if (secret == null) {
            throw new UsageException(flag + " " + this + ": no such Secret");
        }
        return secret;
    }

    /** The decoded bytes of one data key. */
    public byte[] data(Secret secret, String key) {
        byte[] value = dataOrNull(secret, key);
        if (value == null) {
            throw new UsageException(flag + " " + this + ": the Secret has no key " + key);
        }
        return value;
    }

    /** The decoded bytes of one key from {@code data}, else from {@code stringData}; null when neither has it. */
    public byte[] dataOrNull(Secret secret, String key) {
        if (secret.getData() != null && secret.getData().get(key) != null) {
            try {
                return Base64.getDecoder().decode(secret.getData().get(key));
            } catch (IllegalArgumentException e) {
                throw new UsageException(flag + " " + this + ": key " + key + " is not valid base64");
            }
        }
        if (secret.getStringData() != null && secret.getStringData().get(key) != null) {
            return secret.getStringData().get(key).getBytes(StandardCharsets.UTF_8);
        }
        return null;
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
