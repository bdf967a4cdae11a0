package dev.crifresh.coordinator.rollout.view;

import dev.crifresh.coordinator.classify.AttestationCondition;
import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeClassifier;
import dev.crifresh.coordinator.classify.NodeFacts;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Re-uses a node's last classification while nothing it depends on changed (UID, boot id, the
 * attestation condition, annotations) — kubelet heartbeats change a Node every few seconds, and a
 * signature check costs about half a millisecond on the event loop. An entry lives at most 30 s and
 * never past the attestation's expiry, so time-dependent verdicts are re-checked.
 */
public final class ClassificationCache {
    private static final Duration MAX_AGE = Duration.ofSeconds(30);

    private record Key(String uid, String bootId, AttestationCondition condition, Map<String, String> annotations) {
        static Key of(NodeFacts f) {
            return new Key(f.uid(), f.bootId(), f.attestation(), f.annotations());
        }
    }

    private record Entry(Key key, Classification classification, Instant until) {
    }

    private final NodeClassifier classifier;
    private final Map<String, Entry> entries = new HashMap<>();

    public ClassificationCache(NodeClassifier classifier) {
        this.classifier = classifier;
    }

    Classification classify(NodeFacts facts, Instant now) {
        Classification known = cached(facts, now);
        if (known != null) {
            return known;
        }
        Classification c = classifier.classify(facts, now);
        remember(c, now);
        return c;
    }

    /** The node's last classification, carrying its current state, while still good for it; else null. */
    Classification cached(NodeFacts facts, Instant now) {
        Entry e = entries.get(facts.name());
        if (e != null && e.key().equals(Key.of(facts)) && now.isBefore(e.until())) {
            Classification c = e.classification();
            return new Classification(facts, c.verdict(), c.reason(), c.detail(), c.markerSaysCurrent(), c.claims());
        }
        return null;
    }

    /** Stores a classification computed elsewhere (in bulk, off the event loop). */
    void remember(Classification c, Instant now) {
        Instant until = now.plus(MAX_AGE);
        if (c.claims() != null && c.claims().exp() != null && c.claims().exp().isBefore(until)) {
            until = c.claims().exp();
        }
        entries.put(c.name(), new Entry(Key.of(c.node()), c, until));
    }
}
