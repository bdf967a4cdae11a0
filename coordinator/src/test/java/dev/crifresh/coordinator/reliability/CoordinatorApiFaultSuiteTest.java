package dev.crifresh.coordinator.reliability;

import static dev.crifresh.coordinator.fixture.Harness.line;
import static dev.crifresh.coordinator.reliability.ApiState.cordoned;
import static dev.crifresh.coordinator.reliability.ApiState.outcomes;
import static dev.crifresh.coordinator.reliability.ApiState.owned;
import static dev.crifresh.coordinator.reliability.ApiState.phase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.Verdict;
import dev.crifresh.coordinator.base.CoordinatorSettings;
import dev.crifresh.coordinator.fixture.Harness;
import dev.crifresh.coordinator.fixture.TestDriver.Behaviour;
import dev.crifresh.coordinator.report.Outcome;
import dev.crifresh.coordinator.report.Report;
import dev.crifresh.coordinator.report.Result;
import dev.crifresh.mockapi.fault.Exchange;
import dev.crifresh.mockapi.fault.Requests;
import dev.crifresh.mockapi.reliability.FaultRow;
import dev.crifresh.mockapi.reliability.FaultTable;
import dev.crifresh.mockapi.testing.Poll;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * API and Lease faults (docs/reliability.md, "Coordinator: API and Lease faults"): each case a real rollout
 * of a coordinator whose client goes through its own fault-injecting proxy ({@code mockapi}'s
 * {@code FaultyApi}: HTTP answers per client, connection faults at TCP level, watches closed by the server),
 * asserted on the final API state, on what the mock API recorded (every exchange, per client), on the reboots
 * the driver received and on the report — never on log text. Durations are scaled where the row says so; the
 * retries, the fence and the informers under test are the coordinator's own.
 */
@SuppressWarnings("checkstyle:filelength") // the API fault table of docs/reliability.md
class CoordinatorApiFaultSuiteTest {
    interface Body {
        /** Runs the case, asserts, and returns what happened in words. */
        String run(Harness h, List<String> lines) throws Exception;
    }

    record Case(String id, String fault, String point, Body body) {
        @Override
        public String toString() {
            return id + " " + fault + " @ " + point;
        }
    }

    /** Generous: a 2-core machine loaded by several builds. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The coordinator's client name at the mock API (its requests are tagged with it). */
    private static final String C = "coordinator";
    private static final FaultTable TABLE = new FaultTable("coordinator-api", (int) allCases().count());

    /**
     * {@code -Dfault.case=H3} runs one case ({@code H3,L2} several), {@code -Dfault.repeat=10} each selected case ten
     * times, each time on a new mock cluster (to show a case is not flaky); the summary table is then not written.
     */
    static Stream<Case> cases() {
        return FaultTable.selected(allCases(), Case::id);
    }

    static Stream<Case> allCases() {
        return Stream.of(
                new Case("H1", "every API call answered 500 for 5 s (within the ~7 s of retries), then recovering",
                        "from w1's cordon (the drain, the phase patches, the Lease renewals)",
                        CoordinatorApiFaultSuiteTest::answered500),
                new Case("H2", "every API call answered 500 for 12 s (longer than the ~7 s of retries; shorter than the 30 s"
                        + " Lease's hold)", "from w1's return (its attestation, its release)",
                        CoordinatorApiFaultSuiteTest::answered500Longer),
                new Case("H3", "connections refused for 10 s (30 s scaled down: longer than every retry step and than the"
                        + " retries in all; shorter than the 30 s Lease's hold)", "while w1 is down rebooting (it returns during the outage)",
                        CoordinatorApiFaultSuiteTest::connectionsRefused),
                new Case("H4", "connections refused for longer than the Lease's hold (30 s with the default 30 s Lease;"
                        + " scaled: until the run ended, with a 6 s Lease)", "while w1 is down rebooting",
                        CoordinatorApiFaultSuiteTest::connectionsRefusedPastTheHold),
                new Case("H5", "the Node watch closed by the server (a normal WebSocket close)", "while w1 is down rebooting",
                        CoordinatorApiFaultSuiteTest::watchClosed),
                new Case("H6", "slow answers: Lease calls 5 s, node patches 3 s, evictions 4 s, reads 2 s", "from w1's cordon"
                        + " until its reboot request (its drain, eviction, phase patches, last-moment check)", CoordinatorApiFaultSuiteTest::slowAnswers),
                new Case("H7", "409 Conflict on node patches: the first 3 of each node's", "every node patch",
                        CoordinatorApiFaultSuiteTest::conflicts),
                new Case("H8", "429 on every eviction, forever (--drain-timeout 3 s)", "w1's drain",
                        CoordinatorApiFaultSuiteTest::evictionsRefusedForever),
                new Case("H9", "w1's agent heartbeating on its status back to back (every write a new resourceVersion)",
                        "from w1's reboot request to the end of the run (its phase and release patches)",
                        CoordinatorApiFaultSuiteTest::heartbeatDuringRelease),
                new Case("H10", "409 Conflict on w1's release patch, 5 times", "w1's release",
                        CoordinatorApiFaultSuiteTest::conflictsOnRelease),
                new Case("L1", "the Lease held by another live holder", "before the run",
                        CoordinatorApiFaultSuiteTest::leaseHeld),
                new Case("L2", "the Lease lost mid-run: the coordinator's Lease calls answered 500 until its hold ended,"
                        + " then another holder took the expired Lease (6 s Lease)", "while w1 is down rebooting",
                        CoordinatorApiFaultSuiteTest::leaseLost),
                new Case("L3", "two coordinators started at once (--lock-timeout 2 s each)", "start",
                        CoordinatorApiFaultSuiteTest::twoAtOnce),
                new Case("L4", "the Lease taken over by force (an operator writes another holder into the live Lease)",
                        "while w2 drains (a PodDisruptionBudget holds its last pod)", CoordinatorApiFaultSuiteTest::takenOverWhileDraining),
                new Case("L5", "the Lease deleted by force", "while w1's phase rebooting patch is in flight (answered after 3 s),"
                        + " right before its reboot request", CoordinatorApiFaultSuiteTest::deletedBeforeTheDriverCall),
                new Case("C1", "a single control plane (cp1, stale; the API server runs only there), no --api-outage-budget",
                        "plan and rollout", CoordinatorApiFaultSuiteTest::singleControlPlaneRefused),
                new Case("C2", "a single control plane with --api-outage-budget 60s: connections refused while cp1 is down, until"
                        + " the run's Lease expired (6 s Lease)", "cp1's reboot (it returns during the outage)",
                        CoordinatorApiFaultSuiteTest::singleControlPlaneOutageRiddenOut));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void fault(Case c) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        try (Harness h = new Harness()) {
            String result;
            try {
                result = c.body().run(h, lines);
            } catch (Throwable t) {
                TABLE.add(new FaultRow(c.id(), c.fault(), c.point(), "FAILED: " + t.getMessage(), false));
                throw new AssertionError(c.id() + ": " + t.getMessage() + "\nprogress:\n" + String.join("\n", h.progress)
                        + "\nhistory:\n" + h.cluster.api.dispatcher().history(C, x -> !x.path().contains("/leases")).stream()
                        .map(Exchange::toString).collect(java.util.stream.Collectors.joining("\n")), t);
            }
            TABLE.add(new FaultRow(c.id(), c.fault(), c.point(), result, true));
        }
    }

    @AfterAll
    static void writeTable() throws Exception {
        Path module = Path.of("").toAbsolutePath();
        TABLE.finish(module, module.resolve("../docs/reliability.md").normalize());
    }

    // ---- fixtures ---------------------------------------------------------------------------------------

    /**
     * The CLI's default 30 s Lease (the hold lasts 24 s after a renewal is sent), so that the API faults below
     * end no hold; node timeouts that only end a test when something is broken.
     */
    private static CoordinatorSettings settings() {
        return Harness.fastSettings().toBuilder().leaseDuration(Duration.ofSeconds(30)).lockTimeout(Duration.ofSeconds(5))
                .drainTimeout(WAIT).rebootTimeout(WAIT).stallTimeout(WAIT).attestTimeout(WAIT).build();
    }

    /**
     * Waits until the held node is down: its reboot requested, phase rebooting recorded, and NotReady. The
     * driver counts the request before it takes the node down; a node brought back in between would be
     * taken down again after its return.
     */
    private static void down(Harness h, String node) {
        Poll.until(WAIT, node + " down", () -> h.driver.rebootsOf(node) == 1 && "rebooting".equals(phase(h, node))
                && h.cluster.node(node).getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus())));
    }

    private static void twoStaleWorkers(Harness h) {
        h.worker("w1", Verdict.STALE);
        h.worker("w2", Verdict.STALE);
    }

    /** The cordon in the ownership patch of a node. */
    private static Predicate<RecordedRequest> cordonOf(String node) {
        return Requests.call("PATCH", "/api/v1/nodes/" + node)
                .and(Requests.bodyContains("{\"op\":\"add\",\"path\":\"/spec/unschedulable\",\"value\":true}"));
    }

    /**
     * Every request from the first one matching {@code trigger} on (that one passes) for {@code length}: an
     * outage that begins at a named step.
     */
    private static Predicate<RecordedRequest> outageFrom(Predicate<RecordedRequest> trigger, Duration length) {
        AtomicLong start = new AtomicLong();
        return r -> {
            long now = System.nanoTime();
            if (start.get() == 0) {
                if (trigger.test(r)) {
                    start.compareAndSet(0, now);
                }
                return false;
            }
            return now - start.get() < length.toNanos();
        };
    }

    /**
     * Node watches resumed from a resourceVersion older than {@code rv}. kube-apiserver resumes such a watch
     * with the events the client missed, or answers 410 Gone when it no longer has them (the informer then
     * lists again); fabric8's mock cannot replay, so the cases answer as expired ({@code ClientFaults.gone}: an
     * ERROR event with Status 410) — never a resumed watch that silently skips a change.
     */
    private static Predicate<RecordedRequest> nodeWatchOlderThan(long rv) {
        return r -> {
            String path = r.getPath();
            if (path == null || !path.startsWith("/api/v1/nodes?") || !path.contains("watch=true")) {
                return false;
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("[?&]resourceVersion=([0-9]+)").matcher(path);
            return m.find() && Long.parseLong(m.group(1)) < rv;
        };
    }

    private static long resourceVersion(Harness h, String node) {
        return Long.parseLong(h.cluster.node(node).getMetadata().getResourceVersion());
    }

    private static List<Exchange> gone(Harness h) {
        return h.cluster.api.dispatcher().history(C, x -> x.code() == 410);
    }

    /** The requests of {@code client} that changed something (not GET, not on the Lease) after {@code nanos}. */
    private static List<Exchange> writesAfter(Harness h, String client, long nanos) {
        return h.cluster.api.dispatcher().history(client, x -> x.nanos() > nanos && !"GET".equals(x.method())
                && !x.path().contains("/leases"));
    }

    private static List<Exchange> faulted(Harness h) {
        return h.cluster.api.dispatcher().history(C, Exchange::faulted);
    }

    /** Exit 0, both workers rebooted exactly once, nothing left cordoned or owned. */
    private static String completed(Harness h, Report r) {
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w2").outcome(), r.toJson());
        assertEquals(1, h.driver.rebootsOf("w1"), "w1 rebooted twice");
        assertEquals(1, h.driver.rebootsOf("w2"), "w2 rebooted twice");
        assertEquals(List.of(), owned(h), "crifresh annotations left behind");
        assertFalse(cordoned(h, "w1") || cordoned(h, "w2"), "left cordoned");
        assertEquals(List.of(), tainted(h), "crifresh's stale taint left behind");
        return "exit 0, " + outcomes(r) + ", each rebooted once, nothing left cordoned, owned or tainted";
    }

    /** Nodes that still carry crifresh's {@code crifresh.dev/stale} taint. */
    private static List<String> tainted(Harness h) {
        return h.cluster.nodes().stream().filter(n -> n.getSpec().getTaints() != null
                && n.getSpec().getTaints().stream().anyMatch(t -> "crifresh.dev/stale".equals(t.getKey())))
                .map(n -> n.getMetadata().getName()).toList();
    }

    /** Puts another holder into the Lease (the coordinator's hold must have ended: the Lease expired). */
    private static void takeLease(Harness h, String holder, int seconds) {
        var leases = h.cluster.test.leases().inNamespace("crifresh");
        Poll.until(WAIT, "the takeover", () -> {
            Lease now = leases.withName("crifresh-rollout").get();
            Lease taken = new LeaseBuilder(now).editSpec().withHolderIdentity(holder).withLeaseDurationSeconds(seconds)
                    .withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now()).endSpec().build();
            try {
                leases.resource(taken).update();
                return true;
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    return false;
                }
                throw e;
            }
        });
    }

    private static boolean expired(Lease l) {
        ZonedDateTime renewed = l.getSpec().getRenewTime();
        return renewed == null || renewed.plusSeconds(l.getSpec().getLeaseDurationSeconds()).isBefore(ZonedDateTime.now());
    }

    private static Lease lease(Harness h) {
        return h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").get();
    }

    // ---- API faults -------------------------------------------------------------------------------------

    private static String answered500(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.cluster.addPod("shop", "web-0", "w1");
        h.cluster.acceptEvictions("shop", "web-0", h.evictions);
        h.cluster.api.faults(C).fail(outageFrom(cordonOf("w1"), Duration.ofSeconds(5)), 500);
        // The harness' 20 s drain timeout: the drain's own retries then wait at most 5 s between two tries.
        Report r = h.run(C, settings().toBuilder().drainTimeout(Harness.fastSettings().timeouts().drain()).build(), lines).rollout().report(WAIT);
        assertTrue(faulted(h).size() >= 3, "the outage met too few calls: " + faulted(h));
        return "retried through the outage: " + completed(h, r);
    }

    private static String answered500Longer(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.cluster.api.faults(C).fail(outageFrom(Requests.call("PATCH", "/api/v1/nodes/w1")
                .and(Requests.bodyContains("/verifying\"")), Duration.ofSeconds(12)), 500);
        Report r = h.run(C, settings(), lines).rollout().report(WAIT);
        assertTrue(faulted(h).size() >= 3, "the outage met too few calls: " + faulted(h));
        return "retried through the outage: " + completed(h, r);
    }

    private static String connectionsRefused(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.RolloutRun run = h.run(C, settings(), lines).rollout();
        down(h, "w1");
        h.cluster.api.proxy(C).refuse();
        h.driver.bringBack("w1"); // while the coordinator cannot see it
        h.cluster.api.faults(C).gone(nodeWatchOlderThan(resourceVersion(h, "w1")));
        Thread.sleep(10_000);
        h.cluster.api.proxy(C).pass();
        Report r = run.report(WAIT);
        assertTrue(!gone(h).isEmpty(), "the node watches were not resumed after the outage");
        return "watched again after the outage (resumed from before it: 410 Gone, listed again) and saw w1 return: "
                + completed(h, r);
    }

    private static String connectionsRefusedPastTheHold(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.driver.behave("w1", Behaviour.HOLD);
        CoordinatorSettings sixSeconds = settings().toBuilder().leaseDuration(Duration.ofSeconds(6)).build();
        Harness.RolloutRun run = h.run(C, sixSeconds, lines).rollout();
        down(h, "w1");
        h.cluster.api.proxy(C).refuse();
        long refused = System.nanoTime();
        h.driver.bringBack("w1");
        Report r = run.report(WAIT);
        h.cluster.api.proxy(C).pass();
        assertEquals(Result.LEASE_LOST, r.result(), r.toJson());
        assertEquals(4, r.exitCode());
        assertEquals(List.of(), writesAfter(h, C, refused), "writes got through a refusing proxy?");
        assertEquals(0, h.driver.rebootsOf("w2"), "w2 taken down after the Lease was lost");
        assertFalse(cordoned(h, "w2"));
        assertTrue(cordoned(h, "w1"), "w1 no longer cordoned");
        String left = "exit 4 (lease-lost), " + outcomes(r) + " (w1: " + line(r, "w1").detail() + "); w1 left cordoned in phase "
                + phase(h, "w1") + ", w2 untouched";

        Poll.until(WAIT, "the Lease to expire", () -> expired(lease(h)));
        Report rerun = h.run("rerun", settings(), new CopyOnWriteArrayList<>()).rollout().report(WAIT);
        assertEquals(0, rerun.exitCode(), rerun.toJson());
        assertEquals(1, h.driver.rebootsOf("w1"), "w1 rebooted twice");
        assertEquals(1, h.driver.rebootsOf("w2"));
        assertEquals(List.of(), owned(h));
        assertFalse(cordoned(h, "w1") || cordoned(h, "w2"), "left cordoned");
        return left + "; rerun after the Lease expired: exit 0, " + outcomes(rerun) + ", w1 not rebooted again, nothing left"
                + " cordoned or owned";
    }

    private static String watchClosed(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.driver.behave("w1", Behaviour.HOLD);
        Harness.RolloutRun run = h.run(C, settings(), lines).rollout();
        down(h, "w1");
        int watchesBefore = nodeWatches(h);
        // w1 returns between the close and the new watch: new node watches are answered 500 until it has.
        h.cluster.api.faults(C).fail(nodeWatchOlderThan(Long.MAX_VALUE), 500);
        Poll.until(WAIT, "the Node watch closed", () -> h.cluster.api.closeWatches(C, "/api/v1/nodes") > 0);
        h.driver.bringBack("w1");
        long back = resourceVersion(h, "w1");
        h.cluster.api.faults(C).clear();
        h.cluster.api.faults(C).gone(nodeWatchOlderThan(back));
        Report r = run.report(WAIT);
        assertTrue(nodeWatches(h) > watchesBefore, "the coordinator did not watch the nodes again");
        assertTrue(!gone(h).isEmpty(), "the closed watch was not resumed");
        return "the coordinator watched again (resumed from before w1's return: 410 Gone, listed again) and saw w1 return: "
                + completed(h, r);
    }

    private static int nodeWatches(Harness h) {
        return h.cluster.api.dispatcher().history(C, x -> x.code() == 101 && x.path().startsWith("/api/v1/nodes")).size();
    }

    private static String slowAnswers(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.cluster.addPod("shop", "web-0", "w1");
        h.cluster.acceptEvictions("shop", "web-0", h.evictions);
        Predicate<RecordedRequest> notWatch = r -> r.getPath() != null && !r.getPath().contains("watch=");
        // From w1's cordon on (every rule asks the window first, so the cordon arms it whichever rule decides).
        Predicate<RecordedRequest> window = outageFrom(cordonOf("w1"), Duration.ofDays(1));
        h.cluster.api.faults(C)
                .delay(window.and(Requests.leases()), Duration.ofSeconds(5))
                .delay(window.and(Requests.call("PATCH", "/api/v1/nodes/")), Duration.ofSeconds(3))
                .delay(window.and(Requests.pathContains("/eviction")), Duration.ofSeconds(4))
                .delay(window.and(Requests.call("GET", "/")).and(notWatch), Duration.ofSeconds(2));
        Harness.RolloutRun run = h.run(C, settings(), lines).rollout();
        Poll.until(WAIT, "w1's reboot request", () -> h.driver.rebootsOf("w1") == 1);
        h.cluster.api.faults(C).clear();
        Report r = run.report(WAIT);
        assertTrue(faulted(h).size() >= 5, "too few calls were slowed: " + faulted(h));
        return "waited for the slow answers: " + completed(h, r);
    }

    private static String conflicts(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.cluster.api.faults(C)
                .fail(Requests.call("PATCH", "/api/v1/nodes/w1"), 409, 3)
                .fail(Requests.call("PATCH", "/api/v1/nodes/w2"), 409, 3);
        Report r = h.run(C, settings(), lines).rollout().report(WAIT);
        assertEquals(6, faulted(h).size(), "the 409s were not all met: " + faulted(h));
        return "read again and patched again: " + completed(h, r);
    }

    private static String evictionsRefusedForever(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.worker("w3", Verdict.STALE);
        h.cluster.addPod("shop", "db-0", "w1");
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        h.cluster.addPod("shop", "web-0", "w2");
        h.cluster.acceptEvictions("shop", "web-0", h.evictions);
        Report r = h.run(C, settings().toBuilder().drainTimeout(Duration.ofSeconds(3)).build(), lines).rollout().report(WAIT);
        assertTrue(h.cluster.refusals() > 1, "evictions not retried");
        assertEquals(1, r.exitCode(), r.toJson());
        assertEquals(Outcome.FAILED, line(r, "w1").outcome(), r.toJson());
        String detail = line(r, "w1").detail();
        assertTrue(detail.contains("shop/db-0") && detail.contains("drain did not finish"), detail);
        // w3 (no pods) is the seed of fresh capacity and rolls first; then w1, whose drain stops the run.
        assertEquals(List.of("w3"), r.rebootOrder(), r.toJson());
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w2").outcome(), r.toJson());
        assertEquals(List.of("w3"), h.driver.reboots());
        assertEquals(List.of(), owned(h), "the never-rebooted node kept crifresh annotations");
        assertEquals(Map.of("w1", false, "w2", false, "w3", false), ApiState.cordons(h), "left cordoned");
        assertEquals(1, h.cluster.podsOn("w1").size(), "the pod its budget protects was deleted");
        assertEquals(1, h.cluster.podsOn("w2").size(), "w2 was drained after the run stopped");
        return "exit 1, " + outcomes(r) + " (w3, without pods, rolled first as the seed); w1: \"" + detail + "\"; w1 released"
                + " (no crifresh annotation, uncordoned), its pod still running; w2 not touched";
    }

    // ---- Lease faults -----------------------------------------------------------------------------------

    private static String leaseHeld(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        Map<String, Boolean> cordonsBefore = ApiState.cordons(h);
        h.cluster.test.leases().inNamespace("crifresh").resource(new LeaseBuilder().withNewMetadata().withName("crifresh-rollout")
                .withNamespace("crifresh").endMetadata().withNewSpec().withHolderIdentity("someone-else")
                .withLeaseDurationSeconds(3600).withRenewTime(ZonedDateTime.now()).withAcquireTime(ZonedDateTime.now())
                .endSpec().build()).create();
        Report r = h.run(C, settings().toBuilder().lockTimeout(Duration.ofSeconds(2)).build(), lines).rollout().report(WAIT);
        assertEquals(4, r.exitCode(), r.toJson());
        assertEquals(List.of(), h.driver.reboots());
        assertEquals(List.of(), owned(h));
        assertEquals(cordonsBefore, ApiState.cordons(h));
        assertEquals(List.of(), writesAfter(h, C, 0), "the coordinator wrote without the Lease");
        assertEquals(List.of(), h.cluster.api.dispatcher().history(C, x -> x.path().contains("/leases") && !"GET".equals(x.method())),
                "the coordinator wrote to a Lease held by another");
        assertEquals("someone-else", lease(h).getSpec().getHolderIdentity());
        return "exit 4 after --lock-timeout, " + outcomes(r) + "; no write of any kind (mock history), nothing cordoned,"
                + " annotated or rebooted, the Lease untouched";
    }

    private static String leaseLost(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.driver.behave("w1", Behaviour.HOLD);
        CoordinatorSettings sixSeconds = settings().toBuilder().leaseDuration(Duration.ofSeconds(6)).build();
        Harness.RolloutRun run = h.run(C, sixSeconds, lines).rollout();
        down(h, "w1");
        long faultFrom = System.nanoTime();
        h.cluster.api.faults(C).fail(Requests.leases(), 500);
        Poll.until(WAIT, "the coordinator's Lease to expire", () -> expired(lease(h)));
        takeLease(h, "other-run", 3600);
        long taken = System.nanoTime();
        h.driver.bringBack("w1");
        Report r = run.report(WAIT);
        assertEquals(Result.LEASE_LOST, r.result(), r.toJson());
        assertEquals(4, r.exitCode());
        assertEquals(List.of(), writesAfter(h, C, taken), "the coordinator wrote after another run took the Lease");
        assertEquals(0, h.driver.rebootsOf("w2"), "w2 taken down after the Lease was lost");
        assertEquals(List.of(), h.cluster.api.dispatcher().history(C, x -> x.nanos() > faultFrom && !"GET".equals(x.method())
                && x.path().contains("/nodes/w2")), "w2 was patched after the Lease calls began to fail");
        assertFalse(cordoned(h, "w2"));
        assertEquals("other-run", lease(h).getSpec().getHolderIdentity(), "the new holder's Lease was changed");
        assertTrue(cordoned(h, "w1"));
        String left = "exit 4 (lease-lost), " + outcomes(r) + "; nothing written after the takeover, w2 not patched once the"
                + " Lease calls failed (mock history), w1 left cordoned in phase " + phase(h, "w1") + " for the next run (" + line(r, "w1").detail() + ")";

        // The other holder goes away; a rerun finishes the job without rebooting w1 again.
        h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").delete();
        Report rerun = h.run("rerun", settings(), new CopyOnWriteArrayList<>()).rollout().report(WAIT);
        assertEquals(0, rerun.exitCode(), rerun.toJson());
        assertEquals(1, h.driver.rebootsOf("w1"), "w1 rebooted twice");
        assertEquals(1, h.driver.rebootsOf("w2"));
        assertEquals(List.of(), owned(h));
        assertFalse(cordoned(h, "w1") || cordoned(h, "w2"), "left cordoned");
        return left + "; rerun: exit 0, " + outcomes(rerun) + ", w1 not rebooted again, nothing left cordoned or owned";
    }

    private static String twoAtOnce(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.driver.behave("w1", Behaviour.HOLD);
        CoordinatorSettings a = settings().toBuilder().runId("run-a").lockTimeout(Duration.ofSeconds(2)).build();
        CoordinatorSettings b = settings().toBuilder().runId("run-b").lockTimeout(Duration.ofSeconds(2)).build();
        Harness.RolloutRun runA = h.run("a", a, new CopyOnWriteArrayList<>());
        Harness.RolloutRun runB = h.run("b", b, new CopyOnWriteArrayList<>());
        runA.rollout();
        runB.rollout();
        // The winner holds w1 down until the loser has given up.
        down(h, "w1");
        Poll.until(WAIT, "one run to give up", () -> runA.done() || runB.done());
        h.driver.bringBack("w1");
        Report ra = runA.report(WAIT);
        Report rb = runB.report(WAIT);
        assertEquals(List.of(0, 4), Stream.of(ra.exitCode(), rb.exitCode()).sorted().toList(), ra.toJson() + rb.toJson());
        String loser = ra.exitCode() == 4 ? "a" : "b";
        Report won = ra.exitCode() == 0 ? ra : rb;
        assertEquals(2, won.summary().rebooted(), won.toJson());
        assertEquals(List.of(), writesAfter(h, loser, 0), "the run without the Lease wrote");
        assertEquals(List.of(), h.cluster.api.dispatcher().history(loser, x -> x.path().contains("/leases")
                && !"GET".equals(x.method()) && x.code() < 300), "the run without the Lease changed it");
        assertEquals(1, h.driver.rebootsOf("w1"));
        assertEquals(1, h.driver.rebootsOf("w2"));
        assertEquals(List.of(), owned(h));
        assertFalse(cordoned(h, "w1") || cordoned(h, "w2"), "left cordoned");
        return "exactly one proceeded: exit 0, both rebooted once; the other exited 4 after --lock-timeout without a single"
                + " write (mock history)";
    }

    // ---- unrelated writes -------------------------------------------------------------------------------

    private static String heartbeatDuringRelease(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        Harness.RolloutRun run = h.run(C, settings(), lines).rollout();
        Poll.until(WAIT, "w1's reboot request", () -> h.driver.rebootsOf("w1") == 1);
        Report r;
        int beats;
        try (StatusHeartbeat heartbeat = new StatusHeartbeat(h.cluster, "w1")) {
            r = run.report(WAIT);
            beats = heartbeat.beats();
        }
        assertTrue(beats >= 20, "too few heartbeats to meet the run: " + beats);
        long conflicts = h.cluster.api.dispatcher().history(C, x -> x.code() == 409 || x.code() == 422).size();
        assertTrue(conflicts < 5, conflicts + " conflicts: the patches depend on the heartbeat's writes");
        return "status writes on w1 during its phase and release patches; " + completed(h, r);
    }

    /** A node's release: the patch that drops {@code crifresh.dev/rollout}. */
    private static Predicate<RecordedRequest> releaseOf(String node) {
        return Requests.call("PATCH", "/api/v1/nodes/" + node)
                .and(Requests.bodyContains("{\"op\":\"remove\",\"path\":\"/metadata/annotations/crifresh.dev~1rollout\"}"));
    }

    private static String conflictsOnRelease(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.cluster.api.faults(C).fail(releaseOf("w1"), 409, 5);
        Report r = h.run(C, settings(), lines).rollout().report(WAIT);
        assertEquals(5, faulted(h).size(), "the 409s were not all met: " + faulted(h));
        return "read again and released: " + completed(h, r);
    }

    // ---- a Lease taken by force -------------------------------------------------------------------------

    private static List<Exchange> nodePatchesAfter(Harness h, long nanos) {
        return h.cluster.api.dispatcher().history(C, x -> x.nanos() > nanos && "PATCH".equals(x.method())
                && x.path().startsWith("/api/v1/nodes"));
    }

    private static String takenOverWhileDraining(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        h.worker("w3", Verdict.STALE);
        h.cluster.addPod("shop", "db-0", "w2");
        h.cluster.refuseEvictionsAlways("shop", "db-0");
        Harness.RolloutRun run = h.run(C, settings(), lines).rollout();
        Poll.until(WAIT, "w2 draining", () -> "draining".equals(phase(h, "w2")) && h.cluster.refusals() > 0);
        int rebootsBefore = h.driver.reboots().size();
        takeLease(h, "operator", 3600);
        long taken = System.nanoTime();
        // The next run may drain w2 now: the PodDisruptionBudget lets the pod go.
        h.cluster.server.clearExpectations();
        h.cluster.acceptEvictions("shop", "db-0", h.evictions);
        Report r = run.report(WAIT);
        long noticedMillis = (System.nanoTime() - taken) / 1_000_000;
        assertEquals(Result.LEASE_LOST, r.result(), r.toJson());
        assertEquals(4, r.exitCode());
        assertEquals(rebootsBefore, h.driver.reboots().size(), "a reboot after the takeover: " + h.driver.reboots());
        assertEquals(0, h.driver.rebootsOf("w2"));
        assertEquals(0, h.driver.rebootsOf("w3"));
        assertEquals(List.of(), nodePatchesAfter(h, taken), "a node patched after the takeover");
        assertEquals("operator", lease(h).getSpec().getHolderIdentity(), "the new holder's Lease was changed");
        assertTrue(noticedMillis < 10_000, "noticed only after " + noticedMillis + " ms (a renewal is due every 10 s)");
        assertTrue(cordoned(h, "w2"), "w2 released by the run that lost the Lease");
        assertFalse(cordoned(h, "w3"));
        return "exit 4 (lease-lost) at once, not at the next renewal; " + outcomes(r) + "; no reboot and no node patch after the"
                + " takeover (mock history), w2 left cordoned in phase " + phase(h, "w2") + " for the next run, w3 untouched,"
                + " the Lease left to its new holder";
    }

    private static String deletedBeforeTheDriverCall(Harness h, List<String> lines) throws Exception {
        twoStaleWorkers(h);
        java.util.concurrent.atomic.AtomicBoolean sent = new java.util.concurrent.atomic.AtomicBoolean();
        Predicate<RecordedRequest> rebooting = Requests.call("PATCH", "/api/v1/nodes/w1").and(Requests.bodyContains("/rebooting\""));
        h.cluster.api.faults(C).delay(r -> {
            if (rebooting.test(r)) {
                sent.set(true);
                return true;
            }
            return false;
        }, Duration.ofSeconds(3));
        Harness.RolloutRun run = h.run(C, settings(), lines).rollout();
        Poll.until(WAIT, "w1's phase rebooting patch sent", sent::get);
        h.cluster.test.leases().inNamespace("crifresh").withName("crifresh-rollout").delete();
        Report r = run.report(WAIT);
        assertEquals(Result.LEASE_LOST, r.result(), r.toJson());
        assertEquals(4, r.exitCode());
        assertEquals(List.of(), h.driver.reboots(), "the driver was called after the Lease was deleted");
        assertEquals(null, lease(h), "the run took the deleted Lease again");
        assertTrue(cordoned(h, "w1"));
        assertFalse(cordoned(h, "w2"));
        return "exit 4 (lease-lost), " + outcomes(r) + "; the driver never called, w1 left cordoned in phase " + phase(h, "w1")
                + " for the next run, w2 untouched, the Lease not created again";
    }

    // ---- a reboot that takes the API server away ---------------------------------------------------------

    private static void singleControlPlane(Harness h) {
        h.worker("w1", Verdict.STALE);
        h.controlPlane("cp1", Verdict.STALE);
    }

    private static String singleControlPlaneRefused(Harness h, List<String> lines) throws Exception {
        singleControlPlane(h);
        Map<String, Boolean> cordonsBefore = ApiState.cordons(h);
        Report plan = h.run(C, settings(), lines).plan();
        String planned = line(plan, "cp1").detail();
        assertTrue(planned.contains("--api-outage-budget"), "the plan does not say a rollout refuses cp1: " + planned);
        Report r = h.run(C, settings(), lines).rollout().report(WAIT);
        assertEquals(1, r.exitCode(), r.toJson());
        String why = line(r, "cp1").detail();
        assertEquals(Outcome.FAILED, line(r, "cp1").outcome(), r.toJson());
        assertTrue(why.contains("API server") && why.contains("--api-outage-budget"), why);
        assertEquals(Outcome.NOT_ATTEMPTED, line(r, "w1").outcome(), r.toJson());
        assertEquals(List.of(), h.driver.reboots());
        assertEquals(List.of(), owned(h));
        assertEquals(cordonsBefore, ApiState.cordons(h));
        assertEquals(List.of(), tainted(h));
        return "plan and rollout refuse before any node is touched: exit 1, " + outcomes(r) + " (cp1: \"" + why + "\"); nothing"
                + " rebooted, cordoned, owned or tainted";
    }

    private static String singleControlPlaneOutageRiddenOut(Harness h, List<String> lines) throws Exception {
        singleControlPlane(h);
        h.driver.behave("cp1", Behaviour.HOLD);
        CoordinatorSettings riding = settings().toBuilder().leaseDuration(Duration.ofSeconds(6)).apiOutageBudget(Duration.ofSeconds(60)).build();
        Harness.RolloutRun run = h.run(C, riding, lines).rollout();
        down(h, "cp1");
        h.cluster.api.proxy(C).refuse();
        long refused = System.nanoTime();
        h.driver.bringBack("cp1"); // while the coordinator cannot see it
        Poll.until(WAIT, "the run's Lease to expire during the outage", () -> expired(lease(h)));
        long back = System.nanoTime();
        h.cluster.api.proxy(C).pass();
        Report r = run.report(WAIT);
        assertEquals(0, r.exitCode(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "cp1").outcome(), r.toJson());
        assertEquals(Outcome.REBOOTED, line(r, "w1").outcome(), r.toJson());
        assertEquals(1, h.driver.rebootsOf("cp1"), "cp1 rebooted twice");
        assertEquals(1, h.driver.rebootsOf("w1"));
        // Node writes only: an Event sent right before the outage (best effort, not fenced by a read) may reach the
        // dispatcher after the proxy began refusing new connections.
        assertEquals(List.of(), writesAfter(h, C, refused).stream().filter(x -> x.nanos() < back && x.path().startsWith("/api/v1/nodes"))
                .toList(), "node writes got through a refusing proxy?");
        assertEquals(List.of(), owned(h));
        assertFalse(cordoned(h, "cp1") || cordoned(h, "w1"), "left cordoned");
        assertEquals(List.of(), tainted(h));
        return "no node write while the API was away; the Lease renewed again after it (no other holder), then: exit 0, "
                + outcomes(r) + ", each rebooted once, nothing left cordoned, owned or tainted";
    }
}
