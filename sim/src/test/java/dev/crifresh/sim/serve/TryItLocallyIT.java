package dev.crifresh.sim.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.mockapi.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the "Try it locally" section of docs/operations.md exactly as written — every {@code $ } line, in
 * order, through bash, with the real kubectl, the packaged {@code crifresh-sim.jar} and
 * {@code crifresh-coordinator.jar} — checks what each does, and compares what each prints with the output
 * the doc shows under it ({@link DocOutput}: times, ages, ids, ports and durations masked), so a doc that no
 * longer matches what runs fails the build. It runs in the integration-test phase (after {@code package},
 * which builds the jars). The working directory is a temporary one holding the two jars at the paths the
 * commands name, so nothing is written into the repository. A transcript of every command and its output
 * goes to {@code target/try-it-locally.txt}: the source for updating the doc. Skipped only when no kubectl
 * can be found, and then not under {@code CI=true}, where it fails.
 */
@SuppressWarnings("checkstyle:filelength") // the walkthrough of docs/operations.md, step by step
class TryItLocallyIT {
    private static final Path REPO = Path.of("").toAbsolutePath().getParent();
    private static final Path DOC = REPO.resolve("docs/operations.md");
    private static final String FRESH = "ContainerdStartedAfterConfig";
    private static final String STALE = "ConfigChangedAfterContainerdStart";
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration ROLLOUT_TIMEOUT = Duration.ofMinutes(5);

    @TempDir
    Path work;

    private Process serve;
    private Process wait;
    private final StringBuilder transcript = new StringBuilder();
    /** What the doc shows under each command, in order; consumed as the commands run. */
    private List<DocOutput.Shown> documented;
    private DocOutput.Shown documentedWait;
    private final List<String> differences = new ArrayList<>();

    @AfterEach
    void stopEverything() throws IOException {
        for (Process p : new Process[] {wait, serve}) {
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
        }
        Files.writeString(REPO.resolve("sim/target/try-it-locally.txt"), transcript.toString());
        // JUnit warns about every symbolic link it finds when it deletes the temporary directory
        for (String jar : List.of("sim/target/crifresh-sim.jar", "coordinator/target/crifresh-coordinator.jar")) {
            Files.deleteIfExists(work.resolve(jar));
        }
    }

    /** The section's commands: every line starting with "$ ", and "^C" for Ctrl-C in the serve terminal. */
    static List<String> commands(String doc) {
        int begin = doc.indexOf("<!-- try-it-locally:begin -->");
        int end = doc.indexOf("<!-- try-it-locally:end -->");
        assertTrue(begin >= 0 && end > begin, "docs/operations.md has no try-it-locally section");
        List<String> commands = new ArrayList<>();
        for (String line : doc.substring(begin, end).split("\n")) {
            if (line.startsWith("$ ")) {
                commands.add(line.substring(2).trim());
            } else if (line.trim().equals("^C")) {
                commands.add("^C");
            }
        }
        return commands;
    }

    /** The custom-columns command of the section "Is containerd on each node running the current config?". */
    static String customColumnsCommand(String doc) {
        Matcher m = Pattern.compile("(?m)^kubectl get nodes -o custom-columns=.*$").matcher(doc);
        assertTrue(m.find(), "docs/operations.md shows no custom-columns command");
        return m.group();
    }

    /** The README's "Try it locally" shows only commands of the doc's section, which the test below runs. */
    @Test
    void theReadmeShowsOnlyCommandsTheWalkthroughRuns() throws Exception {
        String readme = Files.readString(REPO.resolve("README.md"), StandardCharsets.UTF_8);
        int begin = readme.indexOf("## Try it locally");
        assertTrue(begin >= 0, "README.md has no Try it locally section");
        int end = readme.indexOf("\n## ", begin + 1);
        List<String> shown = readme.substring(begin, end < 0 ? readme.length() : end).lines()
                .filter(l -> l.startsWith("$ ")).map(l -> l.substring(2).replaceFirst(" &$", "").trim()).toList();
        assertTrue(shown.size() >= 5, shown.toString());
        List<String> run = commands(Files.readString(DOC, StandardCharsets.UTF_8));
        for (String command : shown) {
            assertTrue(run.contains(command), "README shows a command the walkthrough does not run: " + command);
        }
    }

    @Test
    void theDocumentedCommandsWorkAgainstTheServedCluster() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("crifresh.after-package"),
                "runs in the integration-test phase, after package has built the jars it runs");
        Path kubectl = kubectl();
        String noKubectl = "kubectl is not installed (Debian: apt-get install kubernetes-client; .ci/run installs it):"
                + " the documented kubectl walkthrough cannot be run here";
        assertTrue(kubectl != null || !"true".equals(System.getenv("CI")), noKubectl);
        Assumptions.assumeTrue(kubectl != null, noKubectl);
        linkJar("sim/target/crifresh-sim.jar");
        linkJar("coordinator/target/crifresh-coordinator.jar");

        String doc = Files.readString(DOC, StandardCharsets.UTF_8);
        List<String> commands = commands(doc);
        String columns = customColumnsCommand(doc);
        assertEquals(List.of("serve", "export", "get nodes", "columns", "describe", "wait", "rollout", "rotate",
                "columns", "^C"), commands.stream().map(c -> kind(c, columns)).toList(),
                "the try-it-locally section changed: " + commands);

        documented = DocOutput.shown(doc, "<!-- try-it-locally:begin -->", "<!-- try-it-locally:end -->");
        Matcher recorded = Pattern.compile("<!-- outputs recorded with kubectl v(\\d+\\.\\d+) -->").matcher(doc);
        assertTrue(recorded.find(), "the section names the kubectl version its outputs were recorded with");
        String here = kubectlMinor(kubectl);
        sameKubectl = recorded.group(1).equals(here);
        if (!sameKubectl) {
            System.out.println("TryItLocallyIT: kubectl v" + here + " here, the doc's outputs are from kubectl v"
                    + recorded.group(1) + ": kubectl's own outputs are not compared, crifresh's are");
        }
        assertEquals(commands, documented.stream().map(DocOutput.Shown::command).toList());

        String exports = "";
        int columnRuns = 0;
        for (int i = 0; i < commands.size(); i++) {
            String command = commands.get(i);
            current = documented.get(i);
            switch (kind(command, columns)) {
                case "serve" -> startServe(command);
                case "export" -> exports += command + "\n";
                case "get nodes" -> checkNodeTable(kubectlAsDocumented(run(exports, command, COMMAND_TIMEOUT)));
                case "columns" -> checkColumns(kubectlAsDocumented(run(exports, command, COMMAND_TIMEOUT)),
                        columnRuns++ == 0);
                case "describe" -> checkDescribe(kubectlAsDocumented(run(exports, command, COMMAND_TIMEOUT)));
                case "wait" -> {
                    documentedWait = current;
                    startWait(exports, command);
                }
                case "rollout" -> checkRollout(rolloutAsDocumented(run(exports, command, ROLLOUT_TIMEOUT)));
                case "rotate" -> checkRotate(shownAsDocumented(run(exports, command, COMMAND_TIMEOUT)));
                case "^C" -> stopServe();
                default -> throw new AssertionError("unexpected command " + command);
            }
        }
        assertTrue(differences.isEmpty(), "docs/operations.md, \"Try it locally\", no longer shows what runs"
                + " (the real outputs are in sim/target/try-it-locally.txt):\n" + String.join("\n", differences));
    }

    private DocOutput.Shown current;

    /** Compares a real output with the one the doc shows under the current command; collects any difference. */
    private void compare(String actual, boolean anyOrder, java.util.function.UnaryOperator<String> also) {
        compare(current, actual, anyOrder, also);
    }

    private void compare(DocOutput.Shown shown, String actual, boolean anyOrder,
                         java.util.function.UnaryOperator<String> also) {
        // serve names its jar by its real path, in the repository (the working directory links to it)
        String here = actual.replace(REPO.toString(), work.toString());
        String difference = DocOutput.difference(shown, withoutBlockedThreadWarnings(here), work.toString(),
                anyOrder, also);
        if (difference != null) {
            differences.add(difference);
        }
    }

    /**
     * Vert.x's blocked-thread warnings (and their stacks) say how loaded the machine is, not what the command
     * does; the doc shows the output without them.
     */
    static List<String> withoutBlockedThreadWarnings(String output) {
        List<String> lines = new ArrayList<>();
        boolean inWarning = false;
        for (String line : output.split("\n", -1)) {
            if (line.contains("BlockedThreadChecker") || line.contains("VertxException: Thread blocked")) {
                inWarning = true;
                continue;
            }
            if (inWarning && (line.startsWith("\tat ") || line.startsWith("\t..."))) {
                continue;
            }
            inWarning = false;
            lines.add(line);
        }
        return lines;
    }

    private static String kind(String command, String columns) {
        if (command.equals("^C")) {
            return "^C";
        }
        if (command.startsWith("java -jar sim/target/crifresh-sim.jar serve")) {
            return "serve";
        }
        if (command.startsWith("export ")) {
            return "export";
        }
        if (command.equals("kubectl get nodes")) {
            return "get nodes";
        }
        if (command.equals(columns)) {
            return "columns";
        }
        if (command.startsWith("kubectl describe node ")) {
            return "describe";
        }
        if (command.startsWith("kubectl wait ")) {
            return "wait";
        }
        if (command.startsWith("java -jar coordinator/target/crifresh-coordinator.jar rollout ")) {
            return "rollout";
        }
        if (command.startsWith("java -jar sim/target/crifresh-sim.jar rotate ")) {
            return "rotate";
        }
        return "other: " + command;
    }

    /** Whether the kubectl here is the minor version the doc's kubectl outputs were recorded with. */
    private boolean sameKubectl = true;

    /**
     * kubectl's own formatting (column sets, describe's sections) changes between its releases: its outputs
     * are compared only with the kubectl minor version the doc names; with another one, what the commands
     * do is still checked, and one line says the comparison was left out.
     */
    private Result kubectlAsDocumented(Result r) {
        return sameKubectl ? shownAsDocumented(r) : r;
    }

    /** The doc shows a command's stdout, then its stderr if it wrote any. */
    private Result shownAsDocumented(Result r) {
        compare(r.stdout() + r.stderr(), false, l -> l);
        return r;
    }

    /**
     * The doc shows the rollout's progress (stderr) before its report (stdout). Two workers roll at once, so the
     * order of their progress lines and of the reboots differs between runs, and a drain reports the pods left
     * as often as they go: the progress lines are compared as a set with the workers' names and places and the
     * pod counts masked, the report line by line with the reboot order masked (checkRollout checks the order
     * itself).
     */
    private Result rolloutAsDocumented(Result r) {
        List<String> progress = r.stderr().lines().toList();
        List<String> report = r.stdout().lines().toList();
        int split = current.lines().indexOf("");
        assertTrue(split > 0, "the doc shows the rollout's progress, an empty line, then its report");
        compare(new DocOutput.Shown(current.command(), current.lines().subList(0, split)), String.join("\n", progress),
                true, l -> l.replaceAll("\\[\\d+/(\\d+)\\] worker-[a-z]+", "[?/$1] worker-?")
                        .replaceAll("draining: \\d+ pods? left", "draining: <n> pods left"));
        compare(new DocOutput.Shown(current.command(), current.lines().subList(split + 1, current.lines().size())),
                String.join("\n", report), false, l -> l.replaceAll("^reboot order: .*", "reboot order: <order>"));
        return r;
    }

    // --- serve ---

    private void startServe(String command) throws Exception {
        serve = bash("exec " + command).redirectOutput(work.resolve("serve.out").toFile())
                .redirectError(work.resolve("serve.err").toFile()).start();
        Poll.until(Duration.ofMinutes(2), "serve to be ready", () -> !serve.isAlive() || output("serve.out")
                .contains("Serving until Ctrl-C."));
        assertTrue(serve.isAlive(), "serve exited: " + output("serve.out") + output("serve.err"));
        record(command, output("serve.out"));
        compare(output("serve.out"), false, l -> l);
        for (String file : List.of("kubeconfig", "trust/jwks.json", "trust/fingerprint.key", "credential.json",
                "targets.json")) {
            assertTrue(Files.isRegularFile(work.resolve("crifresh-sim").resolve(file)), "serve wrote no " + file);
        }
        checkTargets(Files.readString(work.resolve("crifresh-sim/targets.json")));
    }

    /** Every file_sd target is a node's agent answering /metrics with its real verdict gauge. */
    private static void checkTargets(String targets) throws Exception {
        Matcher m = Pattern.compile("\"127\\.0\\.0\\.1:(\\d+)\"[^}]*\"node\"\\s*:\\s*\"([^\"]+)\"", Pattern.DOTALL)
                .matcher(targets);
        Map<String, Integer> ports = new LinkedHashMap<>();
        while (m.find()) {
            ports.put(m.group(2), Integer.parseInt(m.group(1)));
        }
        assertEquals(List.of("cp-1", "worker-a", "worker-b", "worker-c", "worker-d", "worker-e", "worker-f"),
                List.copyOf(ports.keySet()), targets);
        HttpClient http = HttpClient.newHttpClient();
        for (Map.Entry<String, Integer> target : ports.entrySet()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + target.getValue() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            if (target.getKey().equals("worker-c")) {
                // its agent hung (an expired attestation, no agent running): a target that is down
                assertEquals(503, r.statusCode(), target.getKey());
                continue;
            }
            assertEquals(200, r.statusCode(), target.getKey());
            boolean fresh = List.of("worker-d", "worker-e", "worker-f").contains(target.getKey());
            assertTrue(Pattern.compile("(?m)^crifresh_node_fresh " + (fresh ? "1" : "0") + "(\\.0)?$")
                    .matcher(r.body()).find(), target.getKey() + ": " + r.body());
        }
    }

    private void stopServe() throws Exception {
        new ProcessBuilder("kill", "-INT", Long.toString(serve.pid())).inheritIO().start().waitFor();
        assertTrue(serve.waitFor(60, TimeUnit.SECONDS), "serve did not stop within 60 s of Ctrl-C");
        String err = output("serve.err");
        record("^C", err.substring(Math.max(0, err.lastIndexOf("crifresh-sim: stopping"))));
        compare(err.substring(Math.max(0, err.lastIndexOf("crifresh-sim: stopping"))), false, l -> l);
        assertTrue(err.contains("crifresh-sim: stopping"), err);
        String afterStop = err.substring(err.lastIndexOf("crifresh-sim: stopping"));
        assertFalse(afterStop.contains("ERROR") || afterStop.contains("Exception"), "a clean stop: " + afterStop);
        assertFalse(Files.exists(work.resolve("crifresh-sim")), "serve left crifresh-sim/ behind");
    }

    // --- kubectl ---

    private static void checkNodeTable(Result r) {
        r.assertExit(0);
        List<String> lines = r.stdout().lines().toList();
        assertTrue(lines.get(0).matches("NAME\\s+STATUS\\s+ROLES\\s+AGE\\s+VERSION"), r.stdout());
        assertEquals(8, lines.size(), r.stdout());
        assertTrue(lines.get(1).matches("cp-1\\s+Ready\\s+control-plane\\s+\\S+\\s+v1\\.34\\.1"), r.stdout());
        assertTrue(lines.get(2).matches("worker-a\\s+Ready\\s+worker\\s+\\S+\\s+v1\\.34\\.1"), r.stdout());
    }

    private static void checkColumns(Result r, boolean beforeRollout) {
        r.assertExit(0);
        Map<String, String> rows = new LinkedHashMap<>();
        List<String> lines = r.stdout().lines().toList();
        assertTrue(lines.get(0).matches("NAME\\s+FRESH\\s+REASON\\s+SINCE\\s+HEARTBEAT"), r.stdout());
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.trim().split("\\s+");
            assertEquals(5, cells.length, line);
            assertTrue(cells[3].matches("\\d{4}-\\d\\d-\\d\\dT.*Z") && cells[4].matches("\\d{4}-\\d\\d-\\d\\dT.*Z"), line);
            rows.put(cells[0], cells[1] + " " + cells[2]);
        }
        Map<String, String> expected = new LinkedHashMap<>();
        for (String node : List.of("cp-1", "worker-a", "worker-b", "worker-c", "worker-d", "worker-e", "worker-f")) {
            boolean fresh = !beforeRollout ? false : List.of("worker-d", "worker-e", "worker-f").contains(node);
            // worker-c's agent hung: the expiry leader marked its expired condition before serve said it serves
            expected.put(node, beforeRollout && node.equals("worker-c") ? "Unknown AttestationExpired"
                    : fresh ? "True " + FRESH : "False " + STALE);
        }
        assertEquals(expected, rows, r.stdout());
    }

    private static void checkDescribe(Result r) {
        r.assertExit(0);
        assertTrue(r.stdout().contains("Name:               worker-b"), r.stdout());
        assertTrue(Pattern.compile("(?m)^\\s+ContainerdConfigFresh\\s+False\\s+.+\\s" + STALE + "\\s+config /etc/cri/\\S+")
                .matcher(r.stdout()).find(), r.stdout());
        assertTrue(Pattern.compile("(?m)^\\s+Ready\\s+True\\s").matcher(r.stdout()).find(), r.stdout());
        assertTrue(r.stdout().contains("Non-terminated Pods:          (4 in total)"), r.stdout());
    }

    private void startWait(String exports, String command) throws Exception {
        wait = bash(exports + command).redirectOutput(work.resolve("wait.out").toFile())
                .redirectErrorStream(true).start();
        // three nodes are stale: once kubectl is watching, it cannot have returned before the rollout
        Poll.until(Duration.ofMinutes(1), "kubectl wait to watch a node", () -> !wait.isAlive() || kubectlWatches() > 0);
        assertTrue(wait.isAlive(), "kubectl wait returned while nodes were stale: " + output("wait.out"));
    }

    /** The serve's count of kubectl's watch requests (its control endpoint, at the kubeconfig's server). */
    private int kubectlWatches() {
        try {
            return kubectlWatchesAt(Files.readString(work.resolve("crifresh-sim/kubeconfig")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int kubectlWatchesAt(String kubeconfig) throws IOException, InterruptedException {
        Matcher server = Pattern.compile("server:\\s*(\\S+)").matcher(kubeconfig);
        assertTrue(server.find(), "the kubeconfig names no server");
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                server.group(1).replaceAll("/$", "") + "/crifresh-sim/v1/watches")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        Matcher n = Pattern.compile("\"kubectlWatches\"\\s*:\\s*(\\d+)").matcher(r.body());
        assertTrue(n.find(), r.body());
        return Integer.parseInt(n.group(1));
    }

    private void checkRollout(Result r) throws Exception {
        r.assertExit(0);
        assertTrue(r.stdout().contains("result: succeeded"), r.stdout());
        Matcher order = Pattern.compile("(?m)^reboot order: (.*)$").matcher(r.stdout());
        assertTrue(order.find(), r.stdout());
        List<String> rebooted = List.of(order.group(1).split(", "));
        // the three stale nodes and the one whose attestation expired; workers first, the control plane last
        assertEquals(java.util.Set.of("worker-a", "worker-b", "worker-c", "cp-1"), java.util.Set.copyOf(rebooted),
                r.stdout());
        assertEquals("cp-1", rebooted.get(rebooted.size() - 1), r.stdout());
        assertTrue(wait.waitFor(2, TimeUnit.MINUTES), "kubectl wait did not return after the rollout");
        String waited = output("wait.out");
        record("kubectl wait (returned)", waited);
        if (sameKubectl) {
            compare(documentedWait, waited, false, l -> l);
        }
        assertEquals(0, wait.exitValue(), waited);
        assertEquals(7, waited.lines().filter(l -> l.matches("node/\\S+ condition met")).count(), waited);
    }

    private static void checkRotate(Result r) {
        r.assertExit(0);
        assertTrue(r.stdout().contains("rendered on 7 nodes; waiting for 7 agents"), r.stdout());
    }

    // --- plumbing ---

    private record Result(String command, int exit, String stdout, String stderr) {
        void assertExit(int expected) {
            assertEquals(expected, exit, command + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr);
        }
    }

    private Result run(String exports, String command, Duration timeout) throws Exception {
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        Process p = bash(exports + command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("no answer within " + timeout + ": " + command + "\n" + Files.readString(out)
                    + Files.readString(err));
        }
        Result r = new Result(command, p.exitValue(), Files.readString(out), Files.readString(err));
        record(command, r.stdout() + (r.stderr().isEmpty() ? "" : "--- stderr ---\n" + r.stderr()));
        return r;
    }

    private ProcessBuilder bash(String script) {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(work.toFile());
        Path javaBin = Path.of(ProcessHandle.current().info().command().orElse("java")).getParent();
        Map<String, String> env = pb.environment();
        env.put("PATH", (javaBin == null ? "" : javaBin + ":") + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", work.toString());
        env.remove("KUBECONFIG");
        return pb;
    }

    private void linkJar(String relative) throws IOException {
        Path jar = REPO.resolve(relative);
        assertTrue(Files.isRegularFile(jar), jar + " is missing: this test runs after package");
        Files.createDirectories(work.resolve(relative).getParent());
        Files.createSymbolicLink(work.resolve(relative), jar);
    }

    private String output(String file) {
        try {
            return Files.readString(work.resolve(file));
        } catch (IOException e) {
            return "";
        }
    }

    private void record(String command, String output) {
        transcript.append("$ ").append(command).append('\n').append(output).append(output.endsWith("\n") ? "" : "\n")
                .append('\n');
    }

    /** "1.32" from {@code kubectl version --client}'s "Client Version: v1.32.4". */
    private String kubectlMinor(Path kubectl) throws Exception {
        Process p = new ProcessBuilder(kubectl.toString(), "version", "--client").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(1, TimeUnit.MINUTES), "kubectl version did not answer");
        Matcher m = Pattern.compile("v(\\d+\\.\\d+)\\.").matcher(out);
        assertTrue(m.find(), "kubectl version --client: " + out);
        return m.group(1);
    }

    private static Path kubectl() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path candidate = Path.of(dir, "kubectl");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
