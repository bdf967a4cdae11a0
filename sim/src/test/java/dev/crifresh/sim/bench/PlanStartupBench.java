package dev.crifresh.sim.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The deploy job's fixed cost (issue 37 item 7), printed, not asserted: {@code crifresh-coordinator plan}
 * against the 7-node {@code crifresh-sim serve} cluster, each run a whole process timed by {@code /usr/bin/time}
 * (wall, user + system CPU, peak RSS). Two variants in turn after one warm-up each: {@code plain}, the jar as
 * the docs' commands run it ({@code java -jar}), and {@code image}, with the JVM flags of
 * {@code Dockerfile.coordinator}'s ENTRYPOINT (the Action's are the same).
 *
 * <p>Run with {@code ./mvnw -B -o -Pplan-bench -pl sim -am verify -DskipTests}; {@code -Dplan.runs=7}.
 */
public final class PlanStartupBench {
    private static final Pattern ENTRYPOINT = Pattern.compile("^ENTRYPOINT\\s*\\[(.*)]\\s*$", Pattern.MULTILINE);

    public static void main(String[] args) throws Exception {
        Path coordinator = Path.of(args[0]).toAbsolutePath();
        Path simJar = Path.of(args[1]).toAbsolutePath();
        Path dockerfile = Path.of(args[2]).toAbsolutePath();
        int runs = Integer.getInteger("plan.runs", 7);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path dir = Files.createTempDirectory("crifresh-plan-bench-");
        Process serve = new ProcessBuilder(java, "-jar", simJar.toString(), "serve").directory(dir.toFile())
                .redirectOutput(dir.resolve("serve.out").toFile()).redirectError(dir.resolve("serve.err").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (!Files.readString(dir.resolve("serve.out")).contains("Serving until Ctrl-C.")) {
                if (!serve.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("crifresh-sim serve did not start: " + Files.readString(dir.resolve("serve.err")));
                }
                Thread.sleep(200);
            }
            Path files = dir.resolve("crifresh-sim");
            List<String> plan = List.of("-jar", coordinator.toString(), "plan", "--kubeconfig", files.resolve("kubeconfig").toString(),
                    "--trust-bundle", files.resolve("trust").toString(), "--credential-file",
                    files.resolve("credential.json").toString(), "--etcd-check", "none");
            Map<String, List<String>> variants = new LinkedHashMap<>();
            variants.put("plain", List.of());
            variants.put("image", jvmFlags(dockerfile));
            Map<String, List<double[]>> results = new LinkedHashMap<>();
            System.out.printf("PLAN load before: %s%n", loadavg());
            for (int run = 0; run <= runs; run++) {
                for (Map.Entry<String, List<String>> v : variants.entrySet()) {
                    List<String> command = new ArrayList<>(List.of("/usr/bin/time", "-f", "TIME %e %U %S %M", java));
                    command.addAll(v.getValue());
                    command.addAll(plan);
                    double[] figures = time(command, dir);
                    if (run > 0) {
                        results.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(figures);
                        System.out.printf("PLAN run %d %-5s wall %.2f s, CPU %.2f s, peak RSS %.0f MiB; load %s%n", run, v.getKey(),
                                figures[0], figures[1], figures[2], loadavg());
                    }
                }
            }
            for (Map.Entry<String, List<double[]>> r : results.entrySet()) {
                List<Double> wall = new ArrayList<>();
                List<Double> cpu = new ArrayList<>();
                r.getValue().forEach(f -> {
                    wall.add(f[0]);
                    cpu.add(f[1]);
                });
                Collections.sort(wall);
                Collections.sort(cpu);
                System.out.printf("PLAN %s (%d runs; JVM flags: %s): wall median %.2f s (min %.2f, max %.2f); CPU median %.2f s"
                                + " (min %.2f, max %.2f)%n", r.getKey(), wall.size(), String.join(" ", variants.get(r.getKey())),
                        median(wall), wall.get(0), wall.get(wall.size() - 1), median(cpu), cpu.get(0), cpu.get(cpu.size() - 1));
            }
            System.out.printf("PLAN load after: %s%n", loadavg());
        } finally {
            serve.destroy();
            if (!serve.waitFor(30, TimeUnit.SECONDS)) {
                serve.destroyForcibly();
            }
        }
    }

    /** wall s, user + system CPU s, peak RSS MiB of one run; fails unless plan exits 0. */
    private static double[] time(List<String> command, Path dir) throws Exception {
        Path out = dir.resolve("plan.out");
        Path err = dir.resolve("plan.err");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("plan did not finish in 5 minutes");
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("(?m)^TIME (\\S+) (\\S+) (\\S+) (\\d+)$").matcher(stderr);
        if (p.exitValue() != 0 || !m.find()) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + stderr);
        }
        return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)) + Double.parseDouble(m.group(3)),
                Long.parseLong(m.group(4)) / 1024.0};
    }

    /** The arguments between {@code java} and {@code -jar} in the Dockerfile's ENTRYPOINT. */
    static List<String> jvmFlags(Path dockerfile) throws IOException {
        Matcher m = ENTRYPOINT.matcher(Files.readString(dockerfile));
        if (!m.find()) {
            throw new IllegalStateException(dockerfile + " has no ENTRYPOINT");
        }
        List<String> words = new ArrayList<>();
        Matcher quoted = Pattern.compile("\"([^\"]*)\"").matcher(m.group(1));
        while (quoted.find()) {
            words.add(quoted.group(1));
        }
        return List.copyOf(words.subList(1, words.indexOf("-jar")));
    }

    private static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String loadavg() throws IOException {
        return String.join(" ", List.of(Files.readString(Path.of("/proc/loadavg")).trim().split(" ")).subList(0, 3));
    }
}
