package dev.crifresh.sim.bench;

import dev.crifresh.common.attest.AttestationClaims;
import dev.crifresh.common.attest.ClaimsJson;
import dev.crifresh.common.kube.AttestationMessage;
import dev.crifresh.common.kube.ConditionContract;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.coordinator.base.MaxUnavailable;
import dev.crifresh.sim.run.SimulationRun;
import dev.crifresh.sim.scenario.Scenario;
import dev.crifresh.sim.scenario.ScenarioReader;
import dev.crifresh.sim.base.SimEvent;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.Watch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rollout benchmark (docs/performance.md): a simulated cluster of N nodes, a fraction of them stale, each
 * stale node carrying evictable pods; the real coordinator rolls it with a budget, the simulated reboot
 * and pod termination taking the given times. For every case it prints the measured rollout time, the
 * physical limit computed from the same parameters and the agents' measured attestation time, and their
 * ratio. Prints, asserts nothing.
 *
 * <p>System properties: {@code bench.cases} (comma-separated {@code nodes:budget}, budget a count or a
 * percentage; default {@code 30:4,30:1%,30:4%,30:25%,300:1%,300:4%,300:25%}), {@code bench.staleFraction}
 * (default 0.5), {@code bench.rebootMillis} (3000), {@code bench.pods} (evictable pods per node, 3),
 * {@code bench.podTerminationMillis} (50), {@code bench.rounds} (1).
 */
public final class RolloutBench {
    private static final String DEFAULT_CASES = "30:4,30:1%,30:4%,30:25%,300:1%,300:4%,300:25%";

    record Case(int nodes, String budget) {
    }

    record Outcome(Case c, int stale, int budget, int waves, double measuredSeconds, double attestMedianSeconds,
            double attestP90Seconds, double limitSeconds, String result, String phases) {
        double ratio() {
            return measuredSeconds / limitSeconds;
        }
    }

    public static void main(String[] args) throws Exception {
        List<Case> cases = cases(System.getProperty("bench.cases", DEFAULT_CASES));
        double staleFraction = Double.parseDouble(System.getProperty("bench.staleFraction", "0.5"));
        Duration reboot = Duration.ofMillis(Long.getLong("bench.rebootMillis", 3000));
        int pods = Integer.getInteger("bench.pods", 3);
        Duration termination = Duration.ofMillis(Long.getLong("bench.podTerminationMillis", 50));
        int rounds = Integer.getInteger("bench.rounds", 1);

        System.out.printf(Locale.ROOT, "rollout bench: stale fraction %.2f, reboot %d ms, pod termination %d ms,"
                        + " %d evictable pods per node, %d round(s) per case, %d cores, Java %s%n",
                staleFraction, reboot.toMillis(), termination.toMillis(), pods, rounds,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        System.out.println("load average at start: " + loadAverage());
        List<Outcome> outcomes = new ArrayList<>();
        for (Case c : cases) {
            for (int round = 0; round < rounds; round++) {
                Outcome o = run(c, staleFraction, reboot, pods, termination);
                outcomes.add(o);
                System.out.printf(Locale.ROOT, "  %s%n    per node, median: %s%n", line(o), o.phases());
            }
        }
        System.out.println();
        System.out.println("| nodes | stale | max-unavailable | waves | attest median (p90) | physical limit | measured | ratio |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Outcome o : outcomes) {
            System.out.printf(Locale.ROOT, "| %d | %d | %s (%d) | %d | %.2f s (%.2f s) | %.2f s | %.2f s | **%.2f×**%s |%n",
                    o.c().nodes(), o.stale(), o.c().budget(), o.budget(), o.waves(), o.attestMedianSeconds(),
                    o.attestP90Seconds(), o.limitSeconds(), o.measuredSeconds(), o.ratio(),
                    "succeeded".equals(o.result()) ? "" : " (" + o.result() + ")");
        }
        System.out.println("load average at end: " + loadAverage());
        System.exit(0);
    }

    /** A progress line of the coordinator and when it came. */
    record Stamped(long nanos, String line) {
    }

    /**
     * Where a node's time goes, from the coordinator's progress lines: median per node of each step, in
     * milliseconds; "returned" is the time from the reboot request to the new boot seen, less the
     * simulated reboot time.
     */
    record Phases(double startMillis, double drainMillis, double drainedToRebootMillis, double returnOverheadMillis,
            double backToFreshMillis, double freshToUncordonMillis) {
        private static final java.util.regex.Pattern LINE = java.util.regex.Pattern.compile("\\[\\d+/\\d+\\] (\\S+) (.*)");

        static Phases of(long start, List<Stamped> progress, Duration reboot) {
            Map<String, Map<String, Long>> nodes = new java.util.TreeMap<>();
            for (Stamped s : progress) {
                java.util.regex.Matcher m = LINE.matcher(s.line());
                if (!m.matches()) {
                    continue;
                }
                String step = step(m.group(2));
                if (step != null) {
                    nodes.computeIfAbsent(m.group(1), k -> new java.util.HashMap<>()).putIfAbsent(step, s.nanos());
                }
            }
            List<Double> drain = new ArrayList<>();
            List<Double> toReboot = new ArrayList<>();
            List<Double> back = new ArrayList<>();
            List<Double> fresh = new ArrayList<>();
            List<Double> release = new ArrayList<>();
            long firstCordon = Long.MAX_VALUE;
            for (Map<String, Long> t : nodes.values()) {
                firstCordon = Math.min(firstCordon, t.getOrDefault("cordoned", Long.MAX_VALUE));
                gap(t, "cordoned", "drained", 0, drain);
                gap(t, "drained", "reboot", 0, toReboot);
                gap(t, "reboot", "back", reboot.toNanos(), back);
                gap(t, "back", "fresh", 0, fresh);
                gap(t, "fresh", "uncordoned", 0, release);
            }
            return new Phases(firstCordon == Long.MAX_VALUE ? Double.NaN : (firstCordon - start) / 1e6,
                    percentile(sorted(drain), 0.5), percentile(sorted(toReboot), 0.5), percentile(sorted(back), 0.5),
                    percentile(sorted(fresh), 0.5), percentile(sorted(release), 0.5));
        }

        private static String step(String text) {
            if (text.startsWith("cordoned") || text.startsWith("already cordoned")) {
                return "cordoned";
            }
            if (text.equals("drained")) {
                return "drained";
            }
            if (text.startsWith("reboot requested")) {
                return "reboot";
            }
            if (text.startsWith("back with a new boot id")) {
                return "back";
            }
            if (text.startsWith("fresh (")) {
                return "fresh";
            }
            if (text.equals("uncordoned")) {
                return "uncordoned";
            }
            return null;
        }

        private static void gap(Map<String, Long> t, String from, String to, long less, List<Double> into) {
            if (t.containsKey(from) && t.containsKey(to)) {
                into.add((t.get(to) - t.get(from) - less) / 1e6);
            }
        }

        private static List<Double> sorted(List<Double> values) {
            return values.stream().sorted().toList();
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "first cordon after %.0f ms; cordon→drained %.0f ms; drained→reboot requested %.0f ms;"
                            + " reboot requested→back %.0f ms beyond the reboot; back→fresh %.0f ms; fresh→uncordoned %.0f ms",
                    startMillis, drainMillis, drainedToRebootMillis, returnOverheadMillis, backToFreshMillis,
                    freshToUncordonMillis);
        }
    }

    private static String line(Outcome o) {
        return String.format(Locale.ROOT, "%d nodes, %d stale, max-unavailable %s (%d): %d waves; attest median %.2f s"
                        + " (p90 %.2f s); limit %.2f s; measured %.2f s; ratio %.3f; %s; load %s",
                o.c().nodes(), o.stale(), o.c().budget(), o.budget(), o.waves(), o.attestMedianSeconds(),
                o.attestP90Seconds(), o.limitSeconds(), o.measuredSeconds(), o.ratio(), o.result(), loadAverage());
    }

    private static Outcome run(Case c, double staleFraction, Duration reboot, int pods, Duration termination)
            throws Exception {
        Scenario scenario = scenario(c, staleFraction, reboot, pods, termination);
        int stale = (int) scenario.nodes().stream().filter(n -> n.pods() > 0).count();
        int budget = MaxUnavailable.parse(c.budget()).budget(c.nodes());
        int waves = (stale + budget - 1) / budget;

        Map<String, Instant> rebootedAt = new ConcurrentHashMap<>();
        Map<String, Duration> attest = new ConcurrentHashMap<>();
        try (SimulationRun run = SimulationRun.prepare(scenario, e -> {
            if (e.kind() == SimEvent.Kind.REBOOTED) {
                rebootedAt.put(e.node(), e.at());
            }
        })) {
            Watch watch = run.cluster().client().nodes().watch(ScaleBench.attestWatcher(rebootedAt, attest));
            try {
                long start = System.nanoTime();
                List<Stamped> progress = new java.util.concurrent.CopyOnWriteArrayList<>();
                Report report = run.rollout(line -> progress.add(new Stamped(System.nanoTime(), line)));
                double measured = (System.nanoTime() - start) / 1e9;
                String phases = Phases.of(start, progress, reboot).toString();
                List<Double> attests = attest.values().stream().map(d -> d.toNanos() / 1e9).sorted().toList();
                double median = percentile(attests, 0.5);
                double p90 = percentile(attests, 0.9);
                double limit = waves * (termination.toNanos() / 1e9 + reboot.toNanos() / 1e9 + median);
                String result = report.result() == Result.SUCCEEDED ? "succeeded" : report.result().toString()
                        + ": " + report.error();
                return new Outcome(c, stale, budget, waves, measured, median, p90, limit, result, phases);
            } finally {
                watch.close();
            }
        }
    }

    /**
     * N workers; every k-th one (by the stale fraction) stale with {@code pods} evictable pods, the rest fresh.
     * Written as a scenario file (docs/scenarios.md) so every other field keeps its documented default.
     */
    static Scenario scenario(Case c, double staleFraction, Duration reboot, int pods, Duration termination)
            throws Exception {
        int stale = (int) Math.round(c.nodes() * staleFraction);
        StringBuilder yaml = new StringBuilder()
                .append("coordinator: {maxUnavailable: \"").append(c.budget()).append("\", configTimeoutSeconds: 10,")
                .append(" rebootTimeoutSeconds: 120, attestTimeoutSeconds: 120}\n")
                .append("simulation: {rebootMillis: ").append(reboot.toMillis())
                .append(", podTerminationMillis: ").append(termination.toMillis()).append("}\n")
                .append("nodes:\n");
        int staleSoFar = 0;
        for (int i = 0; i < c.nodes(); i++) {
            // Spread the stale nodes evenly over the list.
            boolean isStale = (long) (i + 1) * stale / c.nodes() > staleSoFar;
            if (isStale) {
                staleSoFar++;
            }
            yaml.append(String.format(Locale.ROOT, "  - {name: worker-%03d, containerdStartedSecondsAfterBoot: 6,"
                    + " configWrittenSecondsAfterBoot: %d, pods: %d}%n", i, isStale ? 600 : 3, isStale ? pods : 0));
        }
        return ScenarioReader.parse(yaml.toString());
    }

    static AttestationClaims claims(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return null;
        }
        for (NodeCondition condition : node.getStatus().getConditions()) {
            if (!ConditionContract.CONDITION_TYPE.equals(condition.getType())) {
                continue;
            }
            String token = AttestationMessage.token(condition.getMessage()).orElse(null);
            String[] parts = token == null ? new String[0] : token.split("\\.", -1);
            if (parts.length != 3) {
                return null;
            }
            try {
                return ClaimsJson.read(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return null;
    }

    static double percentile(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    static List<Case> cases(String spec) {
        List<Case> cases = new ArrayList<>();
        for (String part : spec.split(",")) {
            String[] nb = part.trim().split(":");
            cases.add(new Case(Integer.parseInt(nb[0]), nb[1]));
        }
        return cases;
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "?";
        }
    }
}
