package dev.crifresh.coordinator.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.attest.AttestationSigner;
import dev.crifresh.common.attest.AttestationVerifier;
import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.ExpectedNode;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.common.evidence.Reason;
import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.fixture.ApiFixture;
import dev.crifresh.coordinator.fixture.TestAgent;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeysInitTest {
    @TempDir
    Path dir;

    /** The signing key signs an attestation the trust bundle verifies: the two belong together. */
    private static void assertWorksTogether(String signingPem, String jwks, byte[] fingerprintKey) throws Exception {
        SigningKey key = Ed25519Keys.readSigningKeyPem(signingPem);
        TrustBundle bundle = TrustBundle.parse(jwks, fingerprintKey);
        var node = new NodeBuilder().withNewMetadata().withName("n").withUid("u").endMetadata()
                .withNewStatus().withNewNodeInfo().withBootID("b").endNodeInfo().endStatus().build();
        String token = new AttestationSigner(key).sign(TestAgent.claims(node, Verdict.FRESH, Reason.CONTAINERD_STARTED_AFTER_CONFIG, Map.of()));
        assertTrue(new AttestationVerifier(bundle, Duration.ofSeconds(60)).verify(token, new ExpectedNode("n", "u", "b", "True"), Instant.now()).isValid());
    }

    private static void assertNoKeyMaterial(Cli r, String... secrets) {
        assertFalse(r.out().contains("PRIVATE KEY") || r.err().contains("PRIVATE KEY"), r.out());
        for (String s : secrets) {
            assertFalse(r.out().contains(s) || r.err().contains(s), "key material printed");
        }
    }

    @Test
    void filesAreCreatedOnceThenLeftAloneThenRotated() throws Exception {
        Path out = dir.resolve("keys");
        Cli first = Cli.run("keys", "init", "--out-dir", out.toString());
        assertEquals(0, first.exit(), first.err());
        String pem = Files.readString(out.resolve("signing.key"));
        String jwks = Files.readString(out.resolve("jwks.json"));
        byte[] fp = Files.readAllBytes(out.resolve("fingerprint.key"));
        assertEquals(32, fp.length);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("signing.key"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("fingerprint.key"))));
        assertWorksTogether(pem, jwks, fp);
        assertNoKeyMaterial(first, pem.substring(40, 80), Base64.getEncoder().encodeToString(fp));
        String kid = Ed25519Keys.readSigningKeyPem(pem).kid();
        assertTrue(first.out().contains("created " + out.resolve("signing.key") + " (kid " + kid + ")"), first.out());

        Cli again = Cli.run("keys", "init", "--out-dir", out.toString());
        assertEquals(0, again.exit());
        assertTrue(again.out().startsWith("nothing to do"), again.out());
        assertEquals(pem, Files.readString(out.resolve("signing.key")));
        assertEquals(jwks, Files.readString(out.resolve("jwks.json")));

        Cli rotate = Cli.run("keys", "init", "--out-dir", out.toString(), "--rotate");
        assertEquals(0, rotate.exit(), rotate.err());
        String newPem = Files.readString(out.resolve("signing.key"));
        assertNotEquals(pem, newPem);
        assertArrayEquals(fp, Files.readAllBytes(out.resolve("fingerprint.key")));
        TrustBundle rotated = TrustBundle.parse(Files.readString(out.resolve("jwks.json")), fp);
        assertEquals(2, rotated.keysByKid().size());
        assertTrue(rotated.keysByKid().containsKey(kid), "the old key was dropped");
        assertWorksTogether(newPem, Files.readString(out.resolve("jwks.json")), fp);
        assertWorksTogether(pem, Files.readString(out.resolve("jwks.json")), fp);
    }

    @Test
    void secretsAreCreatedOnlyWhenAbsentAndRotationKeepsTheOldKey() throws Exception {
        try (ApiFixture cluster = ApiFixture.start()) {
            Path kubeconfig = dir.resolve("kubeconfig");
            Files.writeString(kubeconfig, """
                    apiVersion: v1
                    kind: Config
                    clusters: [{name: m, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                    users: [{name: u, user: {token: t}}]
                    contexts: [{name: m, context: {cluster: m, user: u}}]
                    current-context: m
                    """.formatted(cluster.client.getConfiguration().getMasterUrl()));
            Cli first = Cli.run("keys", "init", "--kubeconfig", kubeconfig.toString(), "--namespace", "sec");
            assertEquals(0, first.exit(), first.err());
            Secret signing = cluster.test.secrets().inNamespace("sec").withName("crifresh-signing-key").get();
            Secret trust = cluster.test.secrets().inNamespace("sec").withName("crifresh-trust-bundle").get();
            String pem = decode(signing, "signing.key");
            String jwks = decode(trust, "jwks.json");
            byte[] fp = Base64.getDecoder().decode(trust.getData().get("fingerprint.key"));
            assertWorksTogether(pem, jwks, fp);
            assertNoKeyMaterial(first, Base64.getEncoder().encodeToString(fp));
            assertTrue(first.out().contains("created Secret sec/crifresh-signing-key"), first.out());
            assertTrue(first.out().contains("created Secret sec/crifresh-trust-bundle"), first.out());

            Cli again = Cli.run("keys", "init", "--kubeconfig", kubeconfig.toString(), "--namespace", "sec");
            assertEquals(0, again.exit());
            assertTrue(again.out().startsWith("nothing to do"), again.out());
            assertEquals(signing.getMetadata().getResourceVersion(),
                    cluster.test.secrets().inNamespace("sec").withName("crifresh-signing-key").get().getMetadata().getResourceVersion());

            Cli rotate = Cli.run("keys", "init", "--kubeconfig", kubeconfig.toString(), "--namespace", "sec", "--rotate");
            assertEquals(0, rotate.exit(), rotate.err());
            String newPem = decode(cluster.test.secrets().inNamespace("sec").withName("crifresh-signing-key").get(), "signing.key");
            Secret newTrust = cluster.test.secrets().inNamespace("sec").withName("crifresh-trust-bundle").get();
            assertNotEquals(pem, newPem);
            assertArrayEquals(fp, Base64.getDecoder().decode(newTrust.getData().get("fingerprint.key")));
            assertEquals(2, TrustBundle.parse(decode(newTrust, "jwks.json"), fp).keysByKid().size());
            assertWorksTogether(newPem, decode(newTrust, "jwks.json"), fp);
        }
    }

    @Test
    void aMissingSigningKeyIsAddedToAnExistingBundle() throws Exception {
        Path out = dir.resolve("keys");
        assertEquals(0, Cli.run("keys", "init", "--out-dir", out.toString()).exit());
        byte[] fp = Files.readAllBytes(out.resolve("fingerprint.key"));
        Files.delete(out.resolve("signing.key"));
        Cli r = Cli.run("keys", "init", "--out-dir", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertArrayEquals(fp, Files.readAllBytes(out.resolve("fingerprint.key")));
        assertEquals(2, TrustBundle.parse(Files.readString(out.resolve("jwks.json")), fp).keysByKid().size());
        assertWorksTogether(Files.readString(out.resolve("signing.key")), Files.readString(out.resolve("jwks.json")), fp);
    }

    @Test
    void secretsAreDecodedLikeEveryOtherSecretFlag() throws Exception {
        try (ApiFixture cluster = ApiFixture.start()) {
            cluster.test.secrets().inNamespace("sec").resource(new SecretBuilder().withNewMetadata().withName("sign")
                    .withNamespace("sec").endMetadata().withStringData(Map.of("signing.key", "PEM TEXT")).build()).create();
            cluster.test.secrets().inNamespace("sec").resource(new SecretBuilder().withNewMetadata().withName("trust")
                    .withNamespace("sec").endMetadata().withData(Map.of("jwks.json", "not base64!",
                            "fingerprint.key", Base64.getEncoder().encodeToString(new byte[32]))).build()).create();
            SecretKeyStore store = new SecretKeyStore(cluster.client, "sec", "sign", "trust");
            assertEquals("PEM TEXT", store.readSigningKey());
            UsageException bad = assertThrows(UsageException.class, store::readTrust);
            assertEquals("--trust-secret-name sec/trust: key jwks.json is not valid base64", bad.getMessage());
        }
    }

    private static String decode(Secret s, String key) {
        return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
    }
}
