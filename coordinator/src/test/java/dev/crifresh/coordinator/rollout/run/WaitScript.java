package dev.crifresh.coordinator.rollout.run;

import dev.crifresh.coordinator.classify.Classification;
import dev.crifresh.coordinator.classify.NodeFacts;
import dev.crifresh.coordinator.classify.NodeVerdict;
import dev.crifresh.coordinator.fixture.ManualTicker;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * A few words per step for the table-driven tests of the run's waits: {@code "add a"}, {@code "check a FRESH"},
 * {@code "advance 5s"}; each test maps the other verbs itself.
 */
final class WaitScript {
    private WaitScript() {
    }

    static Classification classified(String name, String verdict) {
        NodeFacts facts = NodeFacts.of(new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus().endStatus().build());
        return new Classification(facts, NodeVerdict.valueOf(verdict), "Because", "the detail", false, null);
    }

    /** Runs each step: {@code advance <seconds>s} moves the ticker, anything else goes to {@code other} as its words. */
    static void run(ManualTicker ticker, List<String> steps, Consumer<String[]> other) {
        for (String step : steps) {
            String[] w = step.split(" ");
            if (w[0].equals("advance")) {
                ticker.advance(Duration.ofSeconds(Long.parseLong(w[1].replace("s", ""))));
            } else {
                other.accept(w);
            }
        }
    }
}
