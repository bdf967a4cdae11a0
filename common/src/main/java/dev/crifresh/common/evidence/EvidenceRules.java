package dev.crifresh.common.evidence;

import dev.crifresh.common.registry.PullCredentials;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every rule of docs/design.md, "The rules", in its order, as one pure function: the same inputs always give the
 * same evaluation. Rules 1–6 are one ordered table ({@code DECIDING}): the first that decides gives the outcome;
 * rules 7–11 ({@code AFTER}) then rewrite it in order, never toward fresh. Every doubt ends as stale or unknown.
 *
 * <p>Only two paths produce fresh: rule 3 (containerd started more than the effective margin after the
 * newest config write, and no live change was seen) and rule 4 (the files hold exactly the digest proven
 * loaded for this containerd). The effective margin is the configured margin plus the error of the
 * boot-clock estimate, so an imprecise clock only ever makes the rules stricter.
 */
@SuppressWarnings("checkstyle:filelength") // every rule of docs/design.md's table in one place: the one answer to why a node is stale
public final class EvidenceRules {
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    private EvidenceRules() {
    }

    /**
     * Everything one evaluation judges.
     *
     * @param observation         what was read on the node
     * @param settings            margin and Talos mode
     * @param previous            the memory returned by the previous evaluation, or null on the first one
     * @param runtime             what the CRI runtime reports about its credentials (rule 1a)
     * @param runtimeAsked        whether the runtime-status proof was requested ({@code --cri-socket}, rule 11)
     * @param parseFailures       loaded files that do not parse, or why the reading failed (rule 7)
     * @param problems            credentials the files spell that no pull sends (rule 8)
     * @param unreadableProcesses processes that may be the CRI containerd but could not be read (rule 9)
     * @param kubelet             the Ready condition of the own Node, null without Node information (rule 10)
     */
    public record Inputs(Observation observation, RuleSettings settings, EvaluationMemory previous, RuntimeAuth runtime,
                         boolean runtimeAsked, List<String> parseFailures, List<PullCredentials.Problem> problems,
                         List<String> unreadableProcesses, KubeletReady kubelet) {
        public Inputs {
            Objects.requireNonNull(runtime, "runtime");
            parseFailures = List.copyOf(parseFailures);
            problems = List.copyOf(problems);
            unreadableProcesses = List.copyOf(unreadableProcesses);
        }

        /** Only what rules 1–6 read; rules 7–11 find nothing to do. */
        public static Inputs of(Observation observation, RuleSettings settings, EvaluationMemory previous,
                RuntimeAuth runtime) {
            return new Inputs(observation, settings, previous, runtime, false, List.of(), List.of(), List.of(), null);
        }
    }

    /**
     * @param observation what was read on the node
     * @param settings    margin and Talos mode
     * @param previous    the memory returned by the previous evaluation, or null on the first one
     */
    public static Evaluation evaluate(Observation observation, RuleSettings settings, EvaluationMemory previous) {
        return evaluate(observation, settings, previous, RuntimeAuth.UNAVAILABLE);
    }

    /**
     * As {@link #evaluate(Observation, RuleSettings, EvaluationMemory)}, with what the CRI runtime reports about
     * the credentials it holds: once identity is settled, {@link RuntimeAuth.State#SAME} is fresh (proof
     * runtime-status) and {@link RuntimeAuth.State#DIFFERENT} is stale, whatever the clocks and stamps say.
     */
    public static Evaluation evaluate(Observation observation, RuleSettings settings, EvaluationMemory previous,
            RuntimeAuth runtime) {
        return evaluate(Inputs.of(observation, settings, previous, runtime));
    }

    /** Every rule, in the order of docs/design.md's table: rules 1–6 decide, rules 7–11 rewrite what they gave. */
    public static Evaluation evaluate(Inputs in) {
        Evaluation evaluation = decideRules(in.observation(), in.settings(), in.previous(), in.runtime());
        for (Rewrite rule : AFTER) {
            evaluation = rule.apply().apply(evaluation, in);
        }
        return evaluation;
    }

    private static Evaluation decideRules(Observation observation, RuleSettings settings, EvaluationMemory previous,
            RuntimeAuth runtime) {
        List<ProcessSample> candidates = observation.candidates();
        ProcessSample containerd = candidates.size() == 1 ? candidates.get(0) : null;
        String digest = ConfigDigest.of(observation.files()).orElse(null);
        Duration start = containerd == null || !clockReadable(observation)
                ? null : ticksSinceBoot(containerd.startTicks(), observation.clkTck());
        Instant startedAt = start == null ? null : observation.clock().bootWallTime().plus(start);
        EvaluationMemory memory = nextMemory(observation.bootId(), containerd, digest, previous);
        Outcome outcome = decide(new Facts(observation, settings, containerd, start, startedAt, digest, memory, runtime));
        if (outcome.proof == Proof.ORDERING || outcome.proof == Proof.SOCKET_ORDERING) {
            memory = new EvaluationMemory(memory.identity(), digest, digest, memory.changedWhileRunning());
        }
        return new Evaluation(outcome.reason.verdict(), outcome.reason, outcome.proof, outcome.message,
                containerd, startedAt, digest, memory);
    }

    private record Outcome(Reason reason, Proof proof, String message) {
        static Outcome notFresh(Reason reason, String message) {
            return new Outcome(reason, Proof.NONE, message);
        }
    }

    /**
     * Rule 6's bookkeeping. A memory for the same containerd lifetime keeps its loaded digest and learns
     * whether the digest changed since the last look; a memory of another lifetime is dropped.
     *
     * <p>A memory is never dropped just because one observation was incomplete: forgetting a live change
     * would let the clocks prove a stale containerd fresh. Without a readable config the previous memory
     * is passed on unchanged. Without a boot id or a single containerd, the previous memory keeps its
     * identity but still records a digest change: if that identity is seen again, the same process ran
     * all along, so the change happened while it ran.
     */
    private static EvaluationMemory nextMemory(
            String bootId, ProcessSample containerd, String digest, EvaluationMemory previous) {
        if (digest == null) {
            return previous;
        }
        if (bootId != null && containerd != null) {
            ContainerdIdentity identity = new ContainerdIdentity(bootId, containerd.pid(), containerd.startTicks());
            if (previous == null || !identity.equals(previous.identity())) {
                return new EvaluationMemory(identity, digest, null, false);
            }
        }
        if (previous == null) {
            return null;
        }
        boolean changed = previous.changedWhileRunning() || !digest.equals(previous.lastDigest());
        return new EvaluationMemory(previous.identity(), digest, previous.loadedDigest(), changed);
    }

    /**
     * Rules 1–6 as one ordered table: the first rule that decides gives the outcome. Each rule returns null
     * when it has nothing to say; rule 5 always decides.
     */
    private static final List<Rule> DECIDING = List.of(
            new Rule("1", "host readable", EvidenceRules::hostReadable),
            new Rule("1", "one CRI containerd", EvidenceRules::oneContainerd),
            new Rule("1", "evidence readable and watched", EvidenceRules::evidenceReadable),
            new Rule("1", "containerd serving", f -> servingCheck(f.o().listener(), f.containerd())),
            new Rule("1b", "containerd's own evidence", EvidenceRules::introspected),
            new Rule("1a", "runtime status", EvidenceRules::runtimeStatus),
            new Rule("1", "no mount on the way", f -> mountCheck(f.o())),
            new Rule("1", "start not in the future", EvidenceRules::startInFuture),
            new Rule("2", "clock stepped back", EvidenceRules::clockSteppedBack),
            new Rule("2", "rendered this boot, no change from the future", EvidenceRules::renderedThisBoot),
            new Rule("3", "ordering in the socket's clock", EvidenceRules::socketClock),
            new Rule("3", "ordering", EvidenceRules::ordering),
            new Rule("4", "content", f -> contentProof(f.who(), f.digest(), f.memory())),
            new Rule("5", "stale (6: a live change)", EvidenceRules::stale));

    /**
     * Rules 7–11, each applied in order to the evaluation rules 1–6 gave: they can make it unknown or stale, or
     * explain it, never fresh.
     */
    private static final List<Rewrite> AFTER = List.of(
            new Rewrite("7", "every loaded file parses", (e, in) -> ConfigParseCheck.apply(e, in.parseFailures())),
            new Rewrite("8", "a credential no pull sends", (e, in) -> PullPathRules.apply(e, in.problems())),
            new Rewrite("9", "every candidate process read", (e, in) -> ProcessReadCheck.apply(e,
                    in.unreadableProcesses())),
            new Rewrite("10", "the kubelet sees the runtime", (e, in) -> KubeletWitness.apply(e, in.kubelet())),
            new Rewrite("11", "a requested proof that did not apply", (e, in) -> RequestedProof.apply(e,
                    in.runtime(), in.runtimeAsked())));

    /** One row of rules 1–6: {@code decide} returns null when the rule has nothing to say. */
    private record Rule(String number, String name, Function<Facts, Outcome> decide) {
    }

    /** One row of rules 7–11. */
    private record Rewrite(String number, String name, BiFunction<Evaluation, Inputs, Evaluation> apply) {
    }

    /** What rules 1–6 read, worked out once. */
    private record Facts(Observation o, RuleSettings settings, ProcessSample containerd, Duration start,
                         Instant startedAt, String digest, EvaluationMemory memory, RuntimeAuth runtime) {
        String who() {
            return "containerd (pid " + containerd.pid() + ")";
        }

        /** The configured margin plus the error of the boot-clock estimate. */
        Duration margin() {
            return settings.margin().plus(o.clock().error().abs());
        }

        ClockWitness.Reading witness() {
            return ClockWitness.read(o.containerdSocket(), startedAt, o.clock().error());
        }
    }

    /** The names of the rules in order, as docs/design.md's table lists them ({@code number name}). */
    public static List<String> table() {
        List<String> rows = new ArrayList<>();
        DECIDING.forEach(r -> rows.add(r.number() + " " + r.name()));
        AFTER.forEach(r -> rows.add(r.number() + " " + r.name()));
        return List.copyOf(rows);
    }

    private static Outcome decide(Facts facts) {
        for (Rule rule : DECIDING) {
            Outcome outcome = rule.decide().apply(facts);
            if (outcome != null) {
                return outcome;
            }
        }
        throw new IllegalStateException("rule 5 always decides");
    }

    /** Rule 1: boot id, boot clock and observation time readable. */
    private static Outcome hostReadable(Facts f) {
        return hostReadable(f.o()) ? null : Outcome.notFresh(Reason.HOST_UNREADABLE, hostProblem(f.o()));
    }

    /** Rule 1: exactly one process matches the CRI containerd command line. */
    private static Outcome oneContainerd(Facts f) {
        if (f.o().candidates().isEmpty()) {
            return Outcome.notFresh(Reason.CONTAINERD_NOT_FOUND, "no process matches the CRI containerd command line");
        }
        if (f.containerd() == null) {
            return Outcome.notFresh(Reason.CONTAINERD_AMBIGUOUS, f.o().candidates().size()
                    + " processes match the CRI containerd command line (pids " + pids(f.o().candidates()) + ")");
        }
        return null;
    }

    /** Rule 1: every watched file and directory readable, every file containerd loads watched. */
    private static Outcome evidenceReadable(Facts f) {
        Observation o = f.o();
        if (o.files().isEmpty()) {
            return Outcome.notFresh(Reason.CONFIG_UNREADABLE, "no config file is watched");
        }
        for (WatchedFile file : o.files()) {
            if (!usable(file)) {
                return Outcome.notFresh(Reason.CONFIG_UNREADABLE, "config " + oneLine(file.path()) + " is unreadable"
                        + (file.readError() == null ? "" : " (" + oneLine(file.readError()) + ")"));
            }
        }
        for (WatchedDirectory d : o.directories()) {
            if (!d.isReadable()) {
                return Outcome.notFresh(Reason.CONFIG_UNREADABLE, "config directory " + oneLine(d.path())
                        + " is unreadable" + (d.readError() == null ? "" : " (" + oneLine(d.readError()) + ")"));
            }
        }
        if (!o.unwatchedImports().isEmpty()) {
            return Outcome.notFresh(Reason.CONFIG_UNWATCHED_IMPORT, "containerd loads "
                    + oneLine(o.unwatchedImports().get(0)) + (o.unwatchedImports().size() > 1
                            ? " (and " + (o.unwatchedImports().size() - 1) + " more)" : "")
                    + ", which the agent does not watch");
        }
        return null;
    }

    /** Rule 1b (opt-in): containerd's introspection answer, a veto before any proof of fresh. */
    private static Outcome introspected(Facts f) {
        Stamp newestEvidence = newestChange(f.o());
        return IntrospectionRules.check(f.o().introspection(), f.containerd(), newestEvidence.at(),
                newestEvidence.describe(), f.settings().margin(), f.o().observedAt())
                .map(found -> Outcome.notFresh(found.reason(), found.message())).orElse(null);
    }

    /**
     * Rule 1a (opt-in): the credentials containerd reports holding decide, not the clocks. It is not a content
     * proof (rule 4's memory stays as it was): only the registry credentials were compared.
     */
    private static Outcome runtimeStatus(Facts f) {
        RuntimeAuth runtime = f.runtime();
        if (runtime.state() == RuntimeAuth.State.SAME) {
            return new Outcome(Reason.RUNTIME_STATUS_MATCHES_CONFIG, Proof.RUNTIME_STATUS, f.who()
                    + " reports the registry credentials the config names (" + oneLine(runtime.detail()) + ")");
        }
        if (runtime.state() == RuntimeAuth.State.DIFFERENT) {
            return Outcome.notFresh(Reason.RUNTIME_CREDENTIAL_DIFFERS, f.who()
                    + " reports other registry credentials than the config names (" + oneLine(runtime.detail()) + ")");
        }
        return null;
    }

    /** Rule 1: the process cannot have started after the moment its start was read. */
    private static Outcome startInFuture(Facts f) {
        Duration margin = f.margin();
        Duration uptime = f.o().clock().sinceBoot(f.o().observedAt());
        if (f.start().compareTo(uptime.plus(margin)) <= 0) {
            return null;
        }
        return Outcome.notFresh(Reason.CONTAINERD_START_IN_FUTURE, f.who() + " reports a start "
                + Durations.text(f.start()) + " after boot, later than the uptime " + Durations.text(uptime)
                + " when it was read" + beyondMargin(margin) + ", so the process or clock data is wrong");
    }

    /** Rule 2, the clock witness: a backward step since containerd started leaves only rule 4. */
    private static Outcome clockSteppedBack(Facts f) {
        return f.witness() instanceof ClockWitness.SteppedBack back
                ? steppedBack(back, f.who(), f.digest(), f.memory()) : null;
    }

    /**
     * Rule 2: rendered this boot (Talos mode), and in every mode no change from the future. A forward step the
     * socket shows explains a config that seems older than the boot.
     */
    private static Outcome renderedThisBoot(Facts f) {
        Observation o = f.o();
        Duration margin = f.margin();
        WatchedFile oldest = extreme(o.files(), false);
        Stamp newest = newestChange(o);
        Duration oldestSinceBoot = o.clock().sinceBoot(oldest.mtime());
        if (f.settings().talosMode() && !(f.witness() instanceof ClockWitness.SteppedForward)
                && oldestSinceBoot.compareTo(margin.negated()) < 0) {
            return Outcome.notFresh(Reason.CLOCK_ANOMALY, "config " + oneLine(oldest.path()) + " was written "
                    + Durations.text(oldestSinceBoot.negated()) + " before this boot" + beyondMargin(margin)
                    + ", so the wall clock moved");
        }
        if (newest.at().isAfter(o.observedAt().plus(margin))) {
            return Outcome.notFresh(Reason.CLOCK_ANOMALY, "config " + oneLine(newest.path()) + " has its "
                    + oneLine(newest.by()) + " " + Durations.text(Duration.between(o.observedAt(), newest.at()))
                    + " after it was read" + beyondMargin(margin) + ", so the wall clock moved");
        }
        return null;
    }

    /** Rules 3–5 in the clock of containerd's socket, after a forward step. */
    private static Outcome socketClock(Facts f) {
        return f.witness() instanceof ClockWitness.SteppedForward forward
                ? socketOrdering(forward, f.settings(), newestChange(f.o()), f.who(), f.digest(), f.memory()) : null;
    }

    /** Rule 3: ordering, unless a live change was seen (rule 6). */
    private static Outcome ordering(Facts f) {
        Stamp newest = newestChange(f.o());
        Duration newestSinceBoot = f.o().clock().sinceBoot(newest.at());
        if (f.memory().changedWhileRunning() || newestSinceBoot.plus(f.margin()).compareTo(f.start()) >= 0) {
            return null;
        }
        return new Outcome(Reason.CONTAINERD_STARTED_AFTER_CONFIG, Proof.ORDERING, f.who() + " started "
                + Durations.text(f.start().minus(newestSinceBoot)) + " after the newest config change ("
                + newest.describe() + ")" + beyondMargin(f.margin()));
    }

    /** Rule 5 (and 6): stale. */
    private static Outcome stale(Facts f) {
        if (f.memory().changedWhileRunning()) {
            return changedWhileRunning(f.who(), f.digest(), f.memory());
        }
        Stamp newest = newestChange(f.o());
        Duration margin = f.margin();
        Duration gap = f.start().minus(f.o().clock().sinceBoot(newest.at()));
        if (gap.abs().compareTo(margin) <= 0) {
            return Outcome.notFresh(Reason.ORDERING_WITHIN_MARGIN, f.who() + " started " + Durations.text(gap.abs())
                    + (gap.isNegative() ? " before" : " after") + " the newest config change ("
                    + newest.describe() + "), within the " + Durations.text(margin) + " margin");
        }
        return Outcome.notFresh(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, "config " + newest.describe()
                + " changed " + Durations.text(gap.negated()) + " after " + f.who() + " started");
    }

    private static String beyondMargin(Duration margin) {
        return ", beyond the " + Durations.text(margin) + " margin";
    }

    /** Rule 6: a change seen while containerd ran, and the content it loaded not proven equal: stale. */
    private static Outcome changedWhileRunning(String who, String digest, EvaluationMemory memory) {
        return Outcome.notFresh(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, "config changed to "
                + shortDigest(digest) + " while " + who + " was running, "
                + (memory.loadedDigest() == null ? "and what it loaded was never proven"
                        : "but it loaded " + shortDigest(memory.loadedDigest())));
    }

    /**
     * Rule 1, serving: the containerd the agent timed listens at its address, so it has loaded its config.
     * Anything else — not listening, an unreadable socket table, or no reading at all — is unknown.
     */
    private static Outcome servingCheck(ContainerdListener listener, ProcessSample containerd) {
        String who = "containerd (pid " + containerd.pid() + ")";
        if (listener == null) {
            return Outcome.notFresh(Reason.CONTAINERD_NOT_SERVING, "whether " + who
                    + " listens on its socket was not read");
        }
        String address = listener.address() == null ? "its socket" : oneLine(listener.address());
        return switch (listener.state()) {
            case LISTENING -> null;
            case NOT_LISTENING -> Outcome.notFresh(Reason.CONTAINERD_NOT_SERVING, who + " has not bound its socket "
                    + address + ": it has not finished loading its config, or refused it"
                    + (listener.detail() == null ? "" : " (" + oneLine(listener.detail()) + ")"));
            case UNREADABLE -> Outcome.notFresh(Reason.CONTAINERD_NOT_SERVING, "whether " + who + " listens on "
                    + address + " cannot be read" + (listener.detail() == null ? ""
                            : " (" + oneLine(listener.detail()) + ")"));
        };
    }

    /** Rule 1, mounts: a tree mounted on the way to the config moves no stamp, so nothing can be proven. */
    private static Outcome mountCheck(Observation o) {
        if (o.mountProblems().isEmpty()) {
            return null;
        }
        return Outcome.notFresh(Reason.CONFIG_PATH_MOUNTED, oneLine(o.mountProblems().get(0))
                + (o.mountProblems().size() > 1 ? " (and " + (o.mountProblems().size() - 1) + " more)" : "")
                + ": a tree mounted on the way to the config moves no stamp");
    }

    /**
     * The socket shows a backward step since containerd started: stamps from before it are in a clock
     * that ran ahead, so no ordering can be trusted. Only rule 4, which needs no clock, can prove fresh.
     */
    private static Outcome steppedBack(ClockWitness.SteppedBack back, String who, String digest,
            EvaluationMemory memory) {
        Outcome unchanged = contentProof(who, digest, memory);
        if (unchanged != null) {
            return unchanged;
        }
        return Outcome.notFresh(Reason.CLOCK_STEPPED, "the clock was stepped back since " + who + " started: "
                + back.describe());
    }

    /**
     * Rules 3–5 in the clock of containerd's socket, after a forward step: every stamp written before the
     * step is in that clock, every stamp after it is later than the socket's stamp. Fresh only when the
     * newest change, plus the margin and containerd's start-up reserve (its config is read before its
     * plugins load, the socket is bound after), is before the socket's stamp, and no live change was seen.
     */
    private static Outcome socketOrdering(ClockWitness.SteppedForward forward, RuleSettings settings, Stamp newest,
            String who, String digest, EvaluationMemory memory) {
        Duration margin = settings.margin().plus(ClockWitness.STARTUP_RESERVE);
        Duration gap = Duration.between(newest.at(), forward.socketAt());
        String inSocketClock = " in the clock of its socket (" + forward.describe() + ")";
        if (!memory.changedWhileRunning() && gap.compareTo(margin) > 0) {
            return new Outcome(Reason.CONTAINERD_STARTED_AFTER_CONFIG, Proof.SOCKET_ORDERING, who
                    + " bound its socket " + Durations.text(gap) + " after the newest config change ("
                    + newest.describe() + "), beyond the " + Durations.text(margin) + " margin and start-up reserve,"
                    + inSocketClock);
        }
        Outcome unchanged = contentProof(who, digest, memory);
        if (unchanged != null) {
            return unchanged;
        }
        if (memory.changedWhileRunning()) {
            return changedWhileRunning(who, digest, memory);
        }
        if (gap.isNegative() || gap.isZero()) {
            return Outcome.notFresh(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, "config " + newest.describe()
                    + " changed " + Durations.text(gap.negated()) + " after " + who + " bound its socket"
                    + inSocketClock);
        }
        return Outcome.notFresh(Reason.ORDERING_WITHIN_MARGIN, who + " bound its socket " + Durations.text(gap)
                + " after the newest config change (" + newest.describe() + "), within the "
                + Durations.text(margin) + " margin and start-up reserve" + inSocketClock);
    }

    /** Rule 4: the content equals what this containerd was proven to have loaded; null when it does not. */
    private static Outcome contentProof(String who, String digest, EvaluationMemory memory) {
        if (memory.loadedDigest() == null || !memory.loadedDigest().equals(digest)) {
            return null;
        }
        return new Outcome(Reason.CONFIG_UNCHANGED_SINCE_LOAD, Proof.CONTENT, who
                + " still runs with the config it was proven to load (" + shortDigest(digest) + ")");
    }

    private static boolean hostReadable(Observation o) {
        return o.bootId() != null && clockReadable(o) && o.observedAt() != null;
    }

    private static boolean clockReadable(Observation o) {
        return o.clock() != null && o.clock().bootWallTime() != null && o.clock().error() != null && o.clkTck() > 0;
    }

    private static String hostProblem(Observation o) {
        String what;
        if (o.bootId() == null) {
            what = "the boot id is unreadable";
        } else if (o.clock() == null || o.clock().bootWallTime() == null || o.clock().error() == null) {
            what = "the boot time is unreadable";
        } else if (o.clkTck() <= 0) {
            what = "the clock tick rate " + o.clkTck() + " is not positive";
        } else {
            what = "the observation time is missing";
        }
        return what + (o.hostError() == null ? "" : " (" + oneLine(o.hostError()) + ")");
    }

    /** A file the rules can use: read without error, with an mtime and a content hash. */
    private static boolean usable(WatchedFile f) {
        return f.isReadable() && f.mtime() != null && f.sha256() != null;
    }

    /** One time stamp that bounds the last change: which path, when, and which stamp it is. */
    private record Stamp(String path, Instant at, String by) {
        String describe() {
            return oneLine(path) + ", " + oneLine(by);
        }
    }

    /**
     * The newest change stamp of all files ({@link WatchedFile#changedAt()}) and directories; among equal
     * times the smallest path, so the order of the input never changes the result or the message.
     */
    private static Stamp newestChange(Observation o) {
        List<Stamp> stamps = new ArrayList<>();
        o.files().forEach(f -> stamps.add(new Stamp(f.path(), f.changedAt() == null ? f.mtime() : f.changedAt(),
                f.changedBy() == null ? "mtime" : f.changedBy())));
        o.directories().forEach(d -> stamps.add(new Stamp(d.path(), d.changedAt(), "directory " + d.changedBy())));
        Stamp best = null;
        for (Stamp s : stamps) {
            int byTime = best == null ? 0 : s.at().compareTo(best.at());
            if (best == null || byTime > 0 || (byTime == 0 && s.path().compareTo(best.path()) < 0)) {
                best = s;
            }
        }
        return best;
    }

    /**
     * The file with the latest (or earliest) mtime; among equal mtimes the smallest path, so the order of
     * the input never changes the result or the message.
     */
    private static WatchedFile extreme(List<WatchedFile> files, boolean latest) {
        WatchedFile best = null;
        for (WatchedFile f : files) {
            int byTime = best == null ? 0 : f.mtime().compareTo(best.mtime());
            if (best == null || (latest ? byTime > 0 : byTime < 0)
                    || (byTime == 0 && f.path().compareTo(best.path()) < 0)) {
                best = f;
            }
        }
        return best;
    }

    /** Text from the host (paths, error messages) as one short line, so the message stays one sentence. */
    public static String oneLine(String text) {
        String flat = text.replaceAll("\\p{Cntrl}+", " ").strip();
        return flat.length() <= 200 ? flat : flat.substring(0, 199) + "…";
    }

    /** {@code sha256:} and the first 12 hex digits: enough to tell digests apart in a sentence. */
    private static String shortDigest(String digest) {
        return digest.length() > 19 ? digest.substring(0, 19) : digest;
    }

    private static String pids(List<ProcessSample> candidates) {
        return candidates.stream().map(p -> Long.toString(p.pid())).collect(Collectors.joining(", "));
    }

    /**
     * {@code ticks / clkTck} seconds, exact to the nanosecond and rounded down otherwise (an earlier start
     * only makes rule 3 stricter). Split into whole seconds and a remainder so it cannot overflow.
     */
    static Duration ticksSinceBoot(long ticks, long clkTck) {
        long seconds = Math.floorDiv(ticks, clkTck);
        long remainder = Math.floorMod(ticks, clkTck);
        long nanos = BigInteger.valueOf(remainder).multiply(NANOS_PER_SECOND)
                .divide(BigInteger.valueOf(clkTck)).longValueExact();
        return Duration.ofSeconds(seconds, nanos);
    }
}
