package dev.crifresh.agent.loop;

import dev.crifresh.agent.cri.RuntimeAuthProbe;
import dev.crifresh.agent.host.HostReader;
import dev.crifresh.agent.host.HostSnapshot;
import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.agent.introspect.IntrospectionCheck;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.EvaluationMemory;
import dev.crifresh.common.evidence.EvidenceRules;
import dev.crifresh.common.evidence.KubeletReady;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.evidence.RuntimeAuth;
import dev.crifresh.common.registry.ContainerdReading;
import dev.crifresh.common.registry.CredentialFingerprint;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads the node and applies every rule ({@link EvidenceRules}, in the order of its table), carrying {@link EvaluationMemory} from one evaluation to the
 * next (rules 4 and 6). Blocking; calls must not overlap (the loop runs one at a time).
 */
public final class Evaluator {
    private final HostReader reader;
    private final RuleSettings rules;
    private final byte[] fingerprintKey;
    /** The key of the evaluation's one reading: {@code fingerprintKey}, or without one a key of this process's own. */
    private final byte[] readingKey;
    private final ContainerdReading.Generation generation;
    private final RuntimeAuthProbe runtimeProbe;
    private final IntrospectionCheck introspection;
    private final Supplier<KubeletReady> kubelet;
    private EvaluationMemory memory;

    /**
     * Without the opt-in checks or the kubelet witness.
     *
     * @param fingerprintKey HMAC key for registry fingerprints, or null to publish none
     * @param generation     which containerd reads the config, or null to tell from the files (see RegistryFingerprints)
     */
    public Evaluator(HostReader reader, RuleSettings rules, byte[] fingerprintKey,
                     ContainerdReading.Generation generation) {
        this(reader, rules, fingerprintKey, generation, null, null, () -> null);
    }

    /**
     * @param runtimeProbe  the opt-in CRI status comparison ({@code --cri-socket}), or null
     * @param introspection the opt-in introspection check ({@code --containerd-introspection}, rule 1b), or null
     */
    public Evaluator(HostReader reader, RuleSettings rules, byte[] fingerprintKey,
                     ContainerdReading.Generation generation, RuntimeAuthProbe runtimeProbe,
                     IntrospectionCheck introspection) {
        this(reader, rules, fingerprintKey, generation, runtimeProbe, introspection, () -> null);
    }

    /**
     * @param kubelet the latest Ready condition of the own Node ({@link KubeletReadings#current()}), null without
     *                Node information (then the kubelet witness is silent)
     */
    public Evaluator(HostReader reader, RuleSettings rules, byte[] fingerprintKey,
                     ContainerdReading.Generation generation, RuntimeAuthProbe runtimeProbe,
                     IntrospectionCheck introspection, Supplier<KubeletReady> kubelet) {
        this.kubelet = kubelet;
        this.runtimeProbe = runtimeProbe;
        this.introspection = introspection;
        this.reader = reader;
        this.rules = rules;
        this.fingerprintKey = fingerprintKey == null ? null : fingerprintKey.clone();
        this.readingKey = fingerprintKey == null ? ownKey() : fingerprintKey.clone();
        this.generation = generation;
    }

    public synchronized Assessment evaluate() {
        long started = System.nanoTime();
        HostSnapshot snapshot = reader.read();
        // The one reading of containerd's config for this snapshot: the rules, the introspection veto and the CRI
        // status comparison all judge this value.
        RegistryFingerprints.Result registries = RegistryFingerprints.of(snapshot.tomlDocuments(), readingKey,
                rules.talosMode(), generation, snapshot.hosts());
        // containerd's own socket, asked right after the files were read (rule 1b).
        Observation observation = introspection == null ? snapshot.observation()
                : introspection.inspect(snapshot.observation(), registries);
        // Asked right after the files were read; the runtime that answers is the one listening on the CRI
        // socket, the one kubelet pulls through.
        RuntimeAuth runtime = runtimeProbe == null ? RuntimeAuth.UNAVAILABLE
                : runtimeProbe.compare(registries, readingKey);
        List<String> failures = new ArrayList<>(snapshot.undecodable());
        failures.addAll(registries.parseFailures());
        Evaluation evaluation = EvidenceRules.evaluate(new EvidenceRules.Inputs(observation, rules, memory, runtime,
                runtimeProbe != null, failures, registries.problems(), snapshot.unreadableProcesses(), kubelet.get()));
        ProofFallback fallback = runtimeProbe == null ? null : ProofFallback.of(runtime, evaluation);
        if (evaluation.memory() != null) {
            // Without a single containerd the rules return no memory; keeping the last one is safe
            // because the rules ignore memory that belongs to another containerd identity.
            memory = evaluation.memory();
        }
        return new Assessment(observation, evaluation, fingerprintKey == null ? Map.of() : registries.fingerprints(),
                started, fallback, snapshot.torn());
    }

    private static byte[] ownKey() {
        byte[] key = new byte[CredentialFingerprint.MIN_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return key;
    }

    public HostReader reader() {
        return reader;
    }
}
