package dev.crifresh.reality;

import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.registry.RegistryHosts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One generation's differential run: for each generated node ({@link ShapeGenerator}), what the agent says
 * ({@link AgentReading}, in each mode that applies) against what that generation's containerd does — whether it
 * loads the files (the daemon exits when it does not: {@code config dump} would say the same at the cost of a
 * start), and, started on them, the {@code Authorization} header a CRI pull of each host sends
 * ({@link RecordingRegistry}). A shape is one host of one node: read alike, doubted by the agent, or
 * read differently (the agent says a pull sends a credential, or none, and containerd sent another).
 */
final class Differential {
    /** What one shape came to. */
    enum Outcome { ALIKE, DOUBTED, DIFFERENT, NOT_SERVED }

    /** The tally of one generation's run, and every disagreement in full. */
    static final class Tally {
        int shapes;
        int alike;
        int doubted;
        int different;
        int notServed;
        int nodes;
        int talosShapes;
        int talosDoubted;
        int skipped;
        long startNanos;
        long pullNanos;
        long agentNanos;
        long wallNanos;
        final List<String> disagreements = new ArrayList<>();
        final Map<String, Integer> doubtReasons = new TreeMap<>();

        String line(String generation) {
            return "differential containerd " + generation + ": " + shapes + " shapes, " + alike + " read alike, "
                    + doubted + " doubted, " + different + " read differently";
        }

        String detail(String generation, long wallNanos) {
            return "differential containerd " + generation + ": " + nodes + " node configs, " + notServed
                    + " shapes not served (containerd refused the config or served no CRI; the agent's serving check"
                    + " judges those), " + talosDoubted + " of " + talosShapes + " Talos-layout shapes doubted; "
                    + ms(wallNanos) + " ms wall; " + (nodes - skipped) + " containerd starts ("
                    + ms(startNanos) + " ms), pulls " + ms(pullNanos) + " ms, agent readings " + ms(agentNanos) + " ms";
        }

        private static long ms(long nanos) {
            return nanos / 1_000_000;
        }
    }

    private final ContainerdGeneration generation;
    private final RecordingRegistry registry;
    private final byte[] key;
    private final Path workDir;

    Differential(ContainerdGeneration generation, RecordingRegistry registry, byte[] key, Path workDir) {
        this.generation = generation;
        this.registry = registry;
        this.key = key.clone();
        this.workDir = workDir;
    }

    /** Judges the node of {@code seed}; every shape of it lands in {@code tally}. */
    @SuppressWarnings("checkstyle:methodlength") // one seed judged in order: the node written, each reading, the real pulls, the comparison
    void judge(long seed, Tally tally) {
        List<String> hosts = registry.hosts();
        List<String> pulled = hosts.subList(0, hosts.size() - 1);
        ShapeGenerator.Node shape = ShapeGenerator.generate(seed, generation, pulled, hosts.get(hosts.size() - 1));
        CriNode node = new CriNode(workDir.resolve(generation.name() + "-" + Long.toUnsignedString(seed)));
        shape.files().forEach((path, text) -> node.write(path, text, false));
        tally.nodes++;

        long t0 = System.nanoTime();
        List<AgentReading.Mode> modes = shape.talos()
                ? List.of(AgentReading.Mode.autoTalos(), AgentReading.Mode.named(generation.name(), true))
                : List.of(AgentReading.Mode.autoGeneric(), AgentReading.Mode.named(generation.name(), false));
        List<AgentReading.Said> said = new ArrayList<>();
        for (AgentReading.Mode m : modes) {
            said.add(AgentReading.read(node.hostRoot(), DifferentialContainerd.CONFIG, key, m));
        }
        long t1 = System.nanoTime();
        tally.agentNanos += t1 - t0;

        List<Sent> sent = new ArrayList<>();
        String served = null;
        if (said.stream().allMatch(s -> !(s instanceof AgentReading.Sends))) {
            // every mode doubts the whole node: whatever containerd does, these shapes are doubted
            tally.skipped++;
        } else {
            long t2 = System.nanoTime();
            DifferentialContainerd containerd = DifferentialContainerd.start(node, generation, "containerd.log");
            long t3 = System.nanoTime();
            tally.startNanos += t3 - t2;
            if (containerd == null) {
                // it refused the files (what `config dump` would say too, at the cost of a start)
                served = "containerd exited: " + firstLine(RealContainerd.tail(node.root().resolve("containerd.log")));
            } else {
                try (containerd) {
                    for (String host : pulled) {
                        registry.clear();
                        CriClient.Pull pull = containerd.pull(RecordingRegistry.image(host));
                        sent.add(new Sent(host, headers(registry.requests()), pull));
                        if (!pull.ok() && pull.detail().contains("unknown service")) {
                            served = "no CRI service: " + pull.detail();
                            break;
                        }
                    }
                }
            }
            tally.pullNanos += System.nanoTime() - t3;
        }

        for (int i = 0; i < pulled.size(); i++) {
            String host = pulled.get(i);
            String prefix = "host" + i;
            String hostSummary = shape.summary().stream().filter(l -> l.startsWith(prefix + " ") || l.startsWith(
                    prefix + ":")).findFirst().orElse(prefix);
            Outcome worst = Outcome.ALIKE;
            StringBuilder why = new StringBuilder();
            for (int m = 0; m < modes.size(); m++) {
                AgentReading.Said s = said.get(m);
                Outcome o;
                if (s instanceof AgentReading.Doubt || s instanceof AgentReading.Stale) {
                    o = Outcome.DOUBTED;
                    String reason = s instanceof AgentReading.Doubt d ? "unknown: " + d.why() : "stale: "
                            + ((AgentReading.Stale) s).why();
                    tally.doubtReasons.merge(generation.name() + " " + modes.get(m).name() + " " + reasonKind(reason),
                            1, Integer::sum);
                } else if (s instanceof AgentReading.Sends sends) {
                    String fp = sends.fingerprints().get(RegistryHosts.normalise(host));
                    String containerdSent;
                    if (served != null) {
                        o = Outcome.NOT_SERVED;
                        containerdSent = served;
                    } else {
                        Sent judged = sent.get(i);
                        containerdSent = describe(judged, shape);
                        if (judged.headers().size() > 1) {
                            o = Outcome.DIFFERENT;
                        } else if (judged.headers().isEmpty()) {
                            o = fp == null ? Outcome.ALIKE : Outcome.DIFFERENT;
                        } else {
                            o = fingerprintOf(host, judged.headers().iterator().next()).equals(fp) ? Outcome.ALIKE
                                    : Outcome.DIFFERENT;
                        }
                    }
                    if (o == Outcome.DIFFERENT) {
                        why.append("  ").append(modes.get(m).name()).append(": the agent says a pull sends ")
                                .append(fp == null ? "none" : labelOf(host, fp, shape)).append("; containerd sent ")
                                .append(containerdSent).append('\n');
                    }
                } else {
                    throw new IllegalStateException("unknown agent answer " + s);
                }
                worst = worse(worst, o);
            }
            tally.shapes++;
            if (shape.talos()) {
                tally.talosShapes++;
            }
            switch (worst) {
                case ALIKE -> tally.alike++;
                case DOUBTED -> {
                    tally.doubted++;
                    if (shape.talos()) {
                        tally.talosDoubted++;
                    }
                }
                case DIFFERENT -> {
                    tally.different++;
                    tally.disagreements.add("containerd " + generation.name() + ", seed " + Long.toUnsignedString(seed)
                            + " (replay: -Dcrifresh.differential.replay=" + Long.toUnsignedString(seed)
                            + " -Dcrifresh.differential.generations=" + generation.name() + "), host" + i + "\n"
                            + "  shape: " + String.join("; ", shape.summary().get(0).startsWith("host")
                            ? List.of(hostSummary) : List.of(shape.summary().get(0), hostSummary)) + "\n"
                            + why + "  files (host" + i + " is " + host + ", the mirror " + shape.hosts().get(
                            shape.hosts().size() - 1) + "):\n" + shape.show());
                }
                case NOT_SERVED -> tally.notServed++;
                default -> throw new IllegalStateException("unknown outcome " + worst);
            }
        }
    }

    /** Read differently in one mode is read differently; else a doubt in one mode is a doubt. */
    private static Outcome worse(Outcome a, Outcome b) {
        for (Outcome o : List.of(Outcome.DIFFERENT, Outcome.DOUBTED, Outcome.NOT_SERVED)) {
            if (a == o || b == o) {
                return o;
            }
        }
        return Outcome.ALIKE;
    }

    /** What one pull of {@code host} sent: the distinct {@code Authorization} headers, over every host it asked. */
    record Sent(String host, Set<String> headers, CriClient.Pull pull) {
    }

    private static Set<String> headers(List<RecordingRegistry.Request> requests) {
        Set<String> out = new LinkedHashSet<>();
        for (RecordingRegistry.Request r : requests) {
            if (r.authorization() != null) {
                out.add(r.authorization());
            }
        }
        return out;
    }

    private String describe(Sent sent, ShapeGenerator.Node shape) {
        if (sent.headers().isEmpty()) {
            return "none (pull: " + firstLine(sent.pull().detail()) + ")";
        }
        List<String> names = new ArrayList<>();
        for (String h : sent.headers()) {
            String userPass = decode(h);
            names.add(userPass == null ? "an undecodable header" : shape.labels().getOrDefault(userPass,
                    "a credential the files do not spell"));
        }
        return String.join(" and ", names);
    }

    private String labelOf(String host, String fingerprint, ShapeGenerator.Node shape) {
        for (Map.Entry<String, String> e : shape.labels().entrySet()) {
            if (fingerprintOf(host, "Basic " + Base64.getEncoder().encodeToString(
                    e.getKey().getBytes(StandardCharsets.UTF_8))).equals(fingerprint)) {
                return e.getValue();
            }
        }
        return "a credential the files do not spell as such";
    }

    private String fingerprintOf(String host, String header) {
        String userPass = decode(header);
        if (userPass == null) {
            return "undecodable";
        }
        int colon = userPass.indexOf(':');
        return CredentialFingerprint.of(key, new RegistryAuth(host, userPass.substring(0, colon),
                userPass.substring(colon + 1), ""));
    }

    private static String decode(String header) {
        if (!header.startsWith("Basic ")) {
            return null;
        }
        try {
            String s = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
            return s.contains(":") ? s : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String reasonKind(String reason) {
        String r = reason.replaceAll("/etc/\\S+", "<file>").replaceAll("127\\.0\\.0\\.1[:_]\\d+_?", "H");
        return r.length() > 140 ? r.substring(0, 140) : r;
    }

    static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        String t = text.strip();
        int nl = t.indexOf('\n');
        String line = nl < 0 ? t : t.substring(0, nl);
        return line.length() > 300 ? line.substring(0, 300) + "…" : line;
    }
}
