package dev.crifresh.agent.introspect;

import dev.crifresh.common.evidence.IntrospectionAnswer;
import java.nio.file.Path;

/** Where containerd's introspection answer comes from: its socket, or a test's stand-in. */
public interface IntrospectionSource extends AutoCloseable {
    /** Blocking, bounded by a deadline; never throws: a failure is an {@link IntrospectionAnswer.Unanswered}. */
    IntrospectionAnswer ask(Path socket);

    @Override
    void close();
}
