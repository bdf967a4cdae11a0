import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

/**
 * Prints each module's package graph as the compiled code has it, and its package cycles.
 *
 * <p>Run from the repository root after a build ({@code ./mvnw -B -ntp -DskipTests package}):
 * {@code java tools/PackageGraph.java [module ...]}. It runs the JDK's {@code jdeps -verbose:package}
 * on each module's {@code target/classes} and keeps the edges between the module's own packages
 * (prefix {@code dev.crifresh.<module>}). Exits 1 when some module has a cycle.
 */
public final class PackageGraph {
    private static final List<String> MODULES = List.of("common", "mockapi", "agent", "reality", "coordinator", "sim");
    private static final Pattern EDGE = Pattern.compile("^\\s+(dev\\.crifresh\\.\\S+)\\s+->\\s+(\\S+)");

    public static void main(String[] args) throws Exception {
        List<String> modules = args.length == 0 ? MODULES : List.of(args);
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new IllegalStateException("no jdeps in this JDK"));
        boolean anyCycle = false;
        for (String module : modules) {
            Path classes = Path.of(module, "target", "classes");
            if (!Files.isDirectory(classes)) {
                System.err.println(module + ": no " + classes + " (build first: ./mvnw -B -ntp -DskipTests package)");
                System.exit(2);
            }
            String prefix = "dev.crifresh." + module;
            Map<String, Set<String>> graph = edges(jdeps, classes, prefix);
            List<List<String>> cycles = cycles(graph);
            anyCycle |= !cycles.isEmpty();
            print(module, prefix, graph, cycles);
        }
        System.exit(anyCycle ? 1 : 0);
    }

    private static Map<String, Set<String>> edges(ToolProvider jdeps, Path classes, String prefix) {
        StringWriter out = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(System.err), "-verbose:package", "-filter:none", classes.toString());
        if (rc != 0) {
            throw new IllegalStateException("jdeps failed on " + classes + " (exit " + rc + ")");
        }
        Map<String, Set<String>> graph = new TreeMap<>();
        for (String line : out.toString().split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (!m.find()) {
                continue;
            }
            String from = m.group(1);
            String to = m.group(2);
            if (!inModule(from, prefix)) {
                continue;
            }
            graph.computeIfAbsent(from, k -> new TreeSet<>());
            if (inModule(to, prefix) && !from.equals(to)) {
                graph.get(from).add(to);
            }
        }
        return graph;
    }

    private static boolean inModule(String pkg, String prefix) {
        return pkg.equals(prefix) || pkg.startsWith(prefix + ".");
    }

    private static void print(String module, String prefix, Map<String, Set<String>> graph, List<List<String>> cycles) {
        System.out.println("== " + module + " (" + prefix + "): " + graph.size() + " packages, "
                + (cycles.isEmpty() ? "no cycle" : cycles.size() + " cycle(s)"));
        for (Map.Entry<String, Set<String>> e : graph.entrySet()) {
            List<String> uses = new ArrayList<>();
            for (String to : e.getValue()) {
                uses.add(shortName(to, prefix));
            }
            System.out.println("  " + shortName(e.getKey(), prefix) + " -> " + (uses.isEmpty() ? "(none)" : String.join(", ", uses)));
        }
        for (List<String> cycle : cycles) {
            List<String> names = new ArrayList<>();
            for (String p : cycle) {
                names.add(shortName(p, prefix));
            }
            System.out.println("  CYCLE among " + cycle.size() + ": " + String.join(", ", names));
        }
    }

    private static String shortName(String pkg, String prefix) {
        return pkg.equals(prefix) ? "(" + prefix.substring(prefix.lastIndexOf('.') + 1) + ")" : pkg.substring(prefix.length() + 1);
    }

    /** Strongly connected components with more than one package (Tarjan). */
    private static List<List<String>> cycles(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<List<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                strongConnect(v, graph, index, low, stack, onStack, out, counter);
            }
        }
        return out;
    }

    private static void strongConnect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<List<String>> out, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]);
        counter[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                strongConnect(w, graph, index, low, stack, onStack, out, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                component.sort(null);
                out.add(component);
            }
        }
    }
}
