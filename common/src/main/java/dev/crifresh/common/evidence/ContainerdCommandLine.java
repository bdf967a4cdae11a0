package dev.crifresh.common.evidence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * containerd's global command line read the way containerd reads it (urfave/cli on Go's {@code flag}
 * package): {@code -name} and {@code --name} are the same flag, a value follows as {@code -name=value},
 * {@code --name=value} or the next word (whatever it looks like), the first word that is not a flag or
 * a {@code --} ends the flags and everything after it is positional (a subcommand such as {@code config
 * dump}). Aliases are folded into the long name: {@code -c} is {@code config}, {@code -a} is {@code address},
 * {@code -l} is {@code log-level}. A pure function, safe to fuzz: any input gives a result, never an exception.
 */
public final class ContainerdCommandLine {
    /** The base name of containerd's program; any other program is {@link NotContainerd}. */
    public static final String PROGRAM = "containerd";
    /** containerd's global string flags, by every name it accepts, to the canonical name. */
    private static final Map<String, String> STRING_FLAGS = Map.of(
            "config", "config", "c", "config",
            "address", "address", "a", "address",
            "log-level", "log-level", "l", "log-level",
            "root", "root",
            "state", "state");
    /** containerd's global boolean flags (urfave/cli's help and version). */
    private static final Map<String, String> BOOL_FLAGS = Map.of(
            "help", "help", "h", "help", "version", "version", "v", "version");
    /** Where containerd reads its config when no {@code --config} is given. */
    public static final String DEFAULT_CONFIG = "/etc/containerd/config.toml";

    private ContainerdCommandLine() {
    }

    /** What a command line says. */
    public sealed interface Parsed {
    }

    /** The program is not containerd (its base name differs): not a candidate at all. */
    public record NotContainerd() implements Parsed {
    }

    /**
     * containerd's flags as given: every value of every flag in order, by canonical name, and the
     * positional words (non-empty means a subcommand or stray arguments, not the plain daemon).
     */
    public record Flags(Map<String, List<String>> values, List<String> positional) implements Parsed {
        public Flags {
            Map<String, List<String>> copy = new LinkedHashMap<>();
            values.forEach((k, v) -> copy.put(k, List.copyOf(v)));
            values = Collections.unmodifiableMap(copy);
            positional = List.copyOf(positional);
        }

        /** Every value given for a flag (canonical name), in order; empty when not given. */
        public List<String> all(String canonical) {
            return values.getOrDefault(canonical, List.of());
        }
    }

    /** containerd would refuse this command line (unknown flag, missing value): what was wrong. */
    public record Unparsable(String problem) implements Parsed {
    }

    /** The canonical name of a flag name without dashes, or null when containerd does not know it. */
    public static String canonical(String name) {
        String s = STRING_FLAGS.get(name);
        return s != null ? s : BOOL_FLAGS.get(name);
    }

    public static boolean takesValue(String canonical) {
        return STRING_FLAGS.containsValue(canonical);
    }

    public static Parsed parse(List<String> argv) {
        if (argv == null || argv.isEmpty() || !baseName(argv.get(0)).equals(PROGRAM)) {
            return new NotContainerd();
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        List<String> positional = new ArrayList<>();
        int i = 1;
        while (i < argv.size()) {
            String word = argv.get(i);
            if (word.equals("--")) {
                positional.addAll(argv.subList(i + 1, argv.size()));
                return new Flags(values, positional);
            }
            if (word.length() < 2 || word.charAt(0) != '-') {
                positional.addAll(argv.subList(i, argv.size()));
                return new Flags(values, positional);
            }
            String body = word.charAt(1) == '-' ? word.substring(2) : word.substring(1);
            if (body.isEmpty() || body.charAt(0) == '-' || body.charAt(0) == '=') {
                return new Unparsable("bad flag syntax: " + shown(word));
            }
            int eq = body.indexOf('=');
            String name = eq < 0 ? body : body.substring(0, eq);
            String canonical = canonical(name);
            if (canonical == null) {
                return new Unparsable("flag provided but not defined: " + shown(word));
            }
            String value;
            if (eq >= 0) {
                value = body.substring(eq + 1);
            } else if (!takesValue(canonical)) {
                value = "true";
            } else if (i + 1 < argv.size()) {
                value = argv.get(++i);
            } else {
                return new Unparsable("flag needs an argument: " + shown(word));
            }
            values.computeIfAbsent(canonical, k -> new ArrayList<>()).add(value);
            i++;
        }
        return new Flags(values, positional);
    }

    static String baseName(String program) {
        int slash = program.lastIndexOf('/');
        return slash < 0 ? program : program.substring(slash + 1);
    }

    private static String shown(String word) {
        return EvidenceRules.oneLine(word.length() > 64 ? word.substring(0, 63) + "…" : word);
    }
}
