package dev.crifresh.coordinator.cli;

import dev.crifresh.common.attest.Ed25519Keys;
import dev.crifresh.common.attest.KeyFormatException;
import dev.crifresh.common.attest.SigningKey;
import dev.crifresh.common.attest.TrustBundle;
import java.io.IOException;
import java.io.PrintWriter;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Creates the signing key and the trust bundle only where absent (idempotent). {@code rotate} adds a new
 * key to the bundle, keeps the old ones (agents still signing with them stay trusted until removed)
 * and replaces the signing key; the fingerprint key is kept, so fingerprints stay comparable. Prints
 * what it did and key ids (public), never key material.
 */
final class KeysInit {
    static final int FINGERPRINT_KEY_BYTES = 32;

    private final KeyStore store;
    private final PrintWriter out;

    KeysInit(KeyStore store, PrintWriter out) {
        this.store = store;
        this.out = out;
    }

    void run(boolean rotate) throws IOException {
        String signing = store.readSigningKey();
        KeyStore.TrustParts trust = store.readTrust();
        TrustBundle bundle = trust == null ? null : parse(trust);
        if (!rotate && signing != null && bundle != null) {
            SigningKey key = readSigning(signing);
            out.println("nothing to do: " + store.signingKeyName() + " (kid " + key.kid() + ") and " + store.trustName()
                    + " (kids " + new TreeSet<>(bundle.keysByKid().keySet()) + ") already exist");
            if (!bundle.keysByKid().containsKey(key.kid())) {
                out.println("warning: the trust bundle does not trust the signing key " + key.kid() + "; run keys init --rotate");
            }
            return;
        }
        byte[] fingerprintKey;
        if (bundle != null) {
            fingerprintKey = bundle.fingerprintKey();
        } else {
            fingerprintKey = new byte[FINGERPRINT_KEY_BYTES];
            new SecureRandom().nextBytes(fingerprintKey);
        }
        List<PublicKey> trusted = new ArrayList<>(bundle == null ? List.of() : bundle.keysByKid().values());
        String newKid = null;
        if (signing == null || rotate) {
            KeyPair pair = Ed25519Keys.generate();
            newKid = Ed25519Keys.thumbprint(pair.getPublic());
            trusted.add(pair.getPublic());
            store.writeSigningKey(Ed25519Keys.signingKeyPem(pair), signing != null);
            out.println((signing == null ? "created " : "replaced ") + store.signingKeyName() + " (kid " + newKid + ")");
        } else {
            SigningKey existing = readSigning(signing);
            if (trusted.stream().noneMatch(k -> Ed25519Keys.thumbprint(k).equals(existing.kid()))) {
                trusted.add(existing.publicKey());
            }
        }
        TrustBundle updated;
        try {
            updated = TrustBundle.of(trusted, fingerprintKey);
        } catch (KeyFormatException e) {
            throw new UsageException("cannot build the trust bundle: " + e.getMessage(), e);
        }
        store.writeTrust(updated.jwksJson(), fingerprintKey, trust != null);
        out.println((trust == null ? "created " : "updated ") + store.trustName() + " (kids "
                + new TreeSet<>(updated.keysByKid().keySet()) + (trust == null ? ", new fingerprint key" : ", fingerprint key kept") + ")");
        if (rotate && newKid != null && bundle != null) {
            out.println("next: roll the agents so they sign with " + newKid + ", then remove the old kids from the bundle");
        }
    }

    private TrustBundle parse(KeyStore.TrustParts trust) {
        try {
            return TrustBundle.parse(trust.jwks(), trust.fingerprintKey());
        } catch (KeyFormatException | IllegalArgumentException e) {
            throw new UsageException(store.trustName() + " is not a valid trust bundle: " + e.getMessage(), e);
        }
    }

    private SigningKey readSigning(String pem) {
        try {
            return Ed25519Keys.readSigningKeyPem(pem);
        } catch (KeyFormatException e) {
            throw new UsageException(store.signingKeyName() + " is not a valid signing key: " + e.getMessage(), e);
        }
    }
}
