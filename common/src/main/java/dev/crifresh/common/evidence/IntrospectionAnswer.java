package dev.crifresh.common.evidence;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What containerd's introspection service ({@code containerd.services.introspection.v1.Introspection/Server},
 * on containerd's own socket) answered: containerd/containerd {@code api/services/introspection/v1/introspection.proto},
 * {@code ServerResponse} and {@code DeprecationWarning} (DESIGN, "containerd's own evidence").
 */
public sealed interface IntrospectionAnswer {

    /**
     * A complete answer.
     *
     * @param uuid         the daemon's uuid (kept in its root directory: the same across restarts, so it proves nothing)
     * @param pid          {@code os.Getpid()} of the answering containerd in its own pid namespace; 0 when it does
     *                     not report one (containerd before 1.7)
     * @param pidns        the inode number of its pid namespace; 0 when not reported
     * @param deprecations every deprecation containerd recorded since it started
     */
    record Answered(String uuid, long pid, long pidns, List<Deprecation> deprecations) implements IntrospectionAnswer {
        public Answered {
            Objects.requireNonNull(uuid, "uuid");
            deprecations = List.copyOf(deprecations);
        }
    }

    /** No usable answer: nothing listens, the deadline passed, or the bytes were not the answer. */
    record Unanswered(String problem) implements IntrospectionAnswer {
        public Unanswered {
            Objects.requireNonNull(problem, "problem");
        }
    }

    /**
     * One recorded deprecation.
     *
     * @param id             e.g. {@code io.containerd.deprecation/cri-registry-configs}
     * @param message        containerd's text
     * @param lastOccurrence containerd's wall clock ({@code time.Now()}) when it was last emitted; null when absent
     */
    record Deprecation(String id, String message, Instant lastOccurrence) {
        public Deprecation {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(message, "message");
        }
    }
}
