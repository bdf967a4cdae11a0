package dev.crifresh.common.evidence;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The rules 1–6 of docs/design.md, "The rules", as one pure function: the same observation, settings and
 * memory always give the same evaluation. Every doubt ends as stale or unknown, never as fresh.
 *
 * <p>Only two paths produce fresh: rule 3 (containerd started more than the effective margin after the
 * newest config write, and no live change was seen) and rule 4 (the files hold exactly the digest proven
 * loaded for this containerd). The effective margin is the configured margin plus the error of the
 * boot-clock estimate, so an imprecise clock only ever makes the rules stricter.
 */
public final class EvidenceRules {
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    private EvidenceRules() {
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
        List<ProcessSample> candidates = observation.candidates();
        ProcessSample containerd = candidates.size() == 1 ? candidates.get(0) : null;
        String digest = ConfigDigest.of(observation.files()).orElse(null);
        Duration start = containerd == null || !clockReadable(observation)
                ? null : ticksSinceBoot(containerd.startTicks(), observation.clkTck());
        Instant startedAt = start == null ? null : observation.clock().bootWallTime().plus(start);
        EvaluationMemory memory = nextMemory(observation.bootId(), containerd, digest, previous);
        Outcome outcome = decide(observation, settings, containerd, start, startedAt, digest, memory, runtime);
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

    private static Outcome decide(Observation o, RuleSettings settings, ProcessSample containerd,
            Duration start, Instant startedAt, String digest, EvaluationMemory memory, RuntimeAuth runtime) {
        // Rule 1: identity.
        if (!hostReadable(o)) {
            return Outcome.notFresh(Reason.HOST_UNREADABLE, hostProblem(o));
        }
        if (o.candidates().isEmpty()) {
            return Outcome.notFresh(Reason.CONTAINERD_NOT_FOUND,
                    "no process matches the CRI containerd command line");
        }
        if (containerd == null) {
            return Outcome.notFresh(Reason.CONTAINERD_AMBIGUOUS, o.candidates().size()
                    + " processes match the CRI containerd command line (pids " + pids(o.candidates()) + ")");
        }
        if (o.files().isEmpty()) {
            return Outcome.notFresh(Reason.CONFIG_UNREADABLE, "no config file is watched");
        }
        for (WatchedFile f : o.files()) {
            if (!usable(f)) {
                return Outcome.notFresh(Reason.CONFIG_UNREADABLE, "config " + oneLine(f.path()) + " is unreadable"
                        + (f.readError() == null ? "" : " (" + oneLine(f.readError()) + ")"));
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

        // Rule 1b (opt-in): containerd's introspection answer, a veto before any proof of fresh.
        Stamp newestEvidence = newestChange(o);
        Optional<IntrospectionRules.Finding> introspected = IntrospectionRules.check(o.introspection(),
                containerd, newestEvidence.at(), newestEvidence.describe(), settings.margin(), o.observedAt());
        if (introspected.isPresent()) {
            return Outcome.notFresh(introspected.get().reason(), introspected.get().message());
        }

        // Runtime status (opt-in): the credentials containerd reports holding decide, not the clocks. It is not
        // a content proof (rule 4's memory stays as it was): only the registry credentials were compared.
        if (runtime.state() == RuntimeAuth.State.SAME) {
            return new Outcome(Reason.RUNTIME_STATUS_MATCHES_CONFIG, Proof.RUNTIME_STATUS, "containerd (pid "
                    + containerd.pid() + ") reports the registry credentials the config names (" + oneLine(runtime.detail()) + ")");
        }
        if (runtime.state() == RuntimeAuth.State.DIFFERENT) {
            return Outcome.notFresh(Reason.RUNTIME_CREDENTIAL_DIFFERS, "containerd (pid " + containerd.pid()
                    + ") reports other registry credentials than the config names (" + oneLine(runtime.detail()) + ")");
        }
        // The mount check after the runtime status: containerd's own report does not depend on the path the
        // agent read the files through (the files' fingerprints are what it publishes).
        Outcome mounted = mountCheck(o);
        if (mounted != null) {
            return mounted;
        }

        Duration margin = settings.margin().plus(o.clock().error().abs());
        String beyondMargin = ", beyond the " + Durations.text(margin) + " margin";
        String who = "containerd (pid " + containerd.pid() + ")";

        // The process cannot have started after the moment its start was read.
        Duration uptime = o.clock().sinceBoot(o.observedAt());
        if (start.compareTo(uptime.plus(margin)) > 0) {
            return Outcome.notFresh(Reason.CONTAINERD_START_IN_FUTURE, who + " reports a start "
                    + Durations.text(start) + " after boot, later than the uptime " + Durations.text(uptime)
                    + " when it was read" + beyondMargin + ", so the process or clock data is wrong");
        }

        ClockWitness.Reading witness = ClockWitness.read(o.containerdSocket(), startedAt, o.clock().error());
        if (witness instanceof ClockWitness.SteppedBack back) {
            return steppedBack(back, who, digest, memory);
        }

        // Rule 2: rendered this boot (Talos mode), and in every mode no change from the future. A forward
        // step the socket shows explains a config that seems older than the boot.
        WatchedFile oldest = extreme(o.files(), false);
        Stamp newest = newestChange(o);
        Duration oldestSinceBoot = o.clock().sinceBoot(oldest.mtime());
        if (settings.talosMode() && !(witness instanceof ClockWitness.SteppedForward)
                && oldestSinceBoot.compareTo(margin.negated()) < 0) {
            return Outcome.notFresh(Reason.CLOCK_ANOMALY, "config " + oneLine(oldest.path()) + " was written "
                    + Durations.text(oldestSinceBoot.negated()) + " before this boot" + beyondMargin
                    + ", so the wall clock moved");
        }
        if (newest.at().isAfter(o.observedAt().plus(margin))) {
            return Outcome.notFresh(Reason.CLOCK_ANOMALY, "config " + oneLine(newest.path()) + " has its "
                    + oneLine(newest.by()) + " "
                    + Durations.text(Duration.between(o.observedAt(), newest.at()))
                    + " after it was read" + beyondMargin + ", so the wall clock moved");
        }

        if (witness instanceof ClockWitness.SteppedForward forward) {
            return socketOrdering(forward, settings, newest, who, digest, memory);
        }

        Duration newestSinceBoot = o.clock().sinceBoot(newest.at());
        Duration gap = start.minus(newestSinceBoot);

        // Rule 3: ordering, unless a live change was seen (rule 6).
        if (!memory.changedWhileRunning() && newestSinceBoot.plus(margin).compareTo(start) < 0) {
            return new Outcome(Reason.CONTAINERD_STARTED_AFTER_CONFIG, Proof.ORDERING, who + " started "
                    + Durations.text(gap) + " after the newest config change (" + newest.describe() + ")" + beyondMargin);
        }
        // Rule 4: content equals what this containerd was proven to have loaded.
        Outcome unchanged = contentProof(who, digest, memory);
        if (unchanged != null) {
            return unchanged;
        }
        // Rule 5 (and 6): stale.
        if (memory.changedWhileRunning()) {
            return changedWhileRunning(who, digest, memory);
        }
        if (gap.abs().compareTo(margin) <= 0) {
            return Outcome.notFresh(Reason.ORDERING_WITHIN_MARGIN, who + " started " + Durations.text(gap.abs())
                    + (gap.isNegative() ? " before" : " after") + " the newest config change ("
                    + newest.describe() + "), within the " + Durations.text(margin) + " margin");
        }
        return Outcome.notFresh(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, "config " + newest.describe()
                + " changed " + Durations.text(gap.negated()) + " after " + who + " started");
    }

    /** Rule 6: a change seen while containerd ran, and the content it loaded not proven equal: stale. */
    private static Outcome changedWhileRunning(String who, String digest, EvaluationMemory memory) {
        return Outcome.notFresh(Reason.CONFIG_CHANGED_AFTER_CONTAINERD_START, "config changed to "
                + shortDigest(digest) + " while " + who + " was running, "
                + (memory.loadedDigest() == null ? "and what it loaded was never proven"
                        : "but it loaded " + shortDigest(memory.loadedDigest())));
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
