package dev.crifresh.common.attest;

import dev.crifresh.common.evidence.Verdict;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: full attestation verifications per second (parse, key lookup, Ed25519 signature, claims checks)
 * and, for comparison, signing. Run with {@code ./mvnw -B -Pbench -pl common verify -DskipTests}; the
 * figures go to docs/performance.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class VerifierBenchmark {
    private AttestationSigner signer;
    private AttestationVerifier verifier;
    private AttestationClaims claims;
    private String token;
    private ExpectedNode expected;
    private Instant now;

    @Setup
    public void setUp() throws Exception {
        KeyPair pair = Ed25519Keys.generate();
        SigningKey key = Ed25519Keys.readSigningKeyPem(Ed25519Keys.signingKeyPem(pair));
        signer = new AttestationSigner(key);
        verifier = new AttestationVerifier(TrustBundle.of(List.of(pair.getPublic()), new byte[32]),
                AttestationVerifier.DEFAULT_SKEW);
        claims = Claims.full(Verdict.FRESH);
        token = signer.sign(claims);
        expected = new ExpectedNode(claims.sub(), claims.nodeUid(), claims.bootId(), "True");
        now = claims.iat().plus(Duration.ofMinutes(1));
    }

    @Benchmark
    public VerificationResult verify() {
        VerificationResult result = verifier.verify(token, expected, now);
        if (!result.isValid()) {
            throw new IllegalStateException("the benchmark token must verify: " + result);
        }
        return result;
    }

    @Benchmark
    public String sign() {
        return signer.sign(claims);
    }
}
