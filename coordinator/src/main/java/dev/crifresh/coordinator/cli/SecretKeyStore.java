package dev.crifresh.coordinator.cli;

import dev.crifresh.common.attest.TrustBundle;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/** The two Secrets of the chart: the agent's signing key and the shared trust bundle. */
final class SecretKeyStore implements KeyStore {
    static final String SIGNING_KEY = "signing.key";

    private final KubernetesClient client;
    private final String namespace;
    private final String signingSecret;
    private final String trustSecret;

    SecretKeyStore(KubernetesClient client, String namespace, String signingSecret, String trustSecret) {
        this.client = client;
        this.namespace = namespace;
        this.signingSecret = signingSecret;
        this.trustSecret = trustSecret;
    }

    private Secret get(String name) throws IOException {
        try {
            return client.secrets().inNamespace(namespace).withName(name).get();
        } catch (KubernetesClientException e) {
            throw new IOException("cannot read Secret " + namespace + "/" + name + ": " + e.getCode(), e);
        }
    }


    @Override
    public String readSigningKey() throws IOException {
        Secret s = get(signingSecret);
        if (s == null) {
            return null;
        }
        byte[] pem = new SecretRef("--signing-secret", namespace, signingSecret).dataOrNull(s, SIGNING_KEY);
        if (pem == null) {
            throw new UsageException("Secret " + namespace + "/" + signingSecret + " exists but has no key " + SIGNING_KEY);
        }
        return new String(pem, StandardCharsets.UTF_8);
    }

    @Override
    public TrustParts readTrust() throws IOException {
        Secret s = get(trustSecret);
        if (s == null) {
            return null;
        }
        SecretRef ref = new SecretRef("--trust-secret-name", namespace, trustSecret);
        byte[] jwks = ref.dataOrNull(s, TrustBundle.JWKS_FILE);
        byte[] key = ref.dataOrNull(s, TrustBundle.FINGERPRINT_KEY_FILE);
        if (jwks == null || key == null) {
            throw new UsageException("Secret " + namespace + "/" + trustSecret + " exists but lacks "
                    + TrustBundle.JWKS_FILE + " or " + TrustBundle.FINGERPRINT_KEY_FILE);
        }
        return new TrustParts(new String(jwks, StandardCharsets.UTF_8), key);
    }

    @Override
    public void writeSigningKey(String pem, boolean replace) throws IOException {
        write(signingSecret, Map.of(SIGNING_KEY, pem.getBytes(StandardCharsets.UTF_8)), replace);
    }

    @Override
    public void writeTrust(String jwks, byte[] fingerprintKey, boolean replace) throws IOException {
        Map<String, byte[]> data = new LinkedHashMap<>();
        data.put(TrustBundle.JWKS_FILE, jwks.getBytes(StandardCharsets.UTF_8));
        data.put(TrustBundle.FINGERPRINT_KEY_FILE, fingerprintKey);
        write(trustSecret, data, replace);
    }

    private void write(String name, Map<String, byte[]> content, boolean replace) throws IOException {
        Map<String, String> data = new LinkedHashMap<>();
        content.forEach((k, v) -> data.put(k, Base64.getEncoder().encodeToString(v)));
        try {
            if (replace) {
                Secret current = get(name);
                Secret updated = new SecretBuilder(current).withData(data).build();
                client.secrets().inNamespace(namespace).resource(updated).update();
            } else {
                Secret secret = new SecretBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                        .addToLabels("app.kubernetes.io/name", "crifresh").addToLabels("app.kubernetes.io/managed-by", "crifresh-coordinator")
                        .endMetadata().withType("Opaque").withData(data).build();
                client.secrets().inNamespace(namespace).resource(secret).create();
            }
        } catch (KubernetesClientException e) {
            String why = e.getCode() == 409 ? "it was changed or created concurrently; run keys init again" : "API answered " + e.getCode();
            throw new IOException("cannot write Secret " + namespace + "/" + name + ": " + why, e);
        }
    }

    @Override
    public String signingKeyName() {
        return "Secret " + namespace + "/" + signingSecret;
    }

    @Override
    public String trustName() {
        return "Secret " + namespace + "/" + trustSecret;
    }
}
