package dev.crifresh.common.evidence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recognises the CRI containerd by its command line, read as containerd itself reads it
 * ({@link ContainerdCommandLine}): the program's base name is {@code containerd} and every required flag
 * has the required value ({@code -a}/{@code --address}, {@code -c}/{@code --config}, {@code --flag=value} and
 * {@code -flag value} are all the same flag). On Talos this tells the CRI containerd
 * ({@code --address /run/containerd/containerd.sock}) from the system containerd
 * ({@code --address /system/run/containerd/containerd.sock}).
 *
 * <p>A command line that could be the CRI containerd but does not say so unambiguously is a
 * {@link Doubt}, never a match and never ignored: a required flag given twice with different values,
 * two different configs, a subcommand instead of the daemon, or flags containerd would refuse. The agent turns a
 * doubt into an unknown verdict.
 */
public final class ContainerdMatcher {
    /**
     * The program's base name every match needs: {@link #match} says {@link No} to any command line whose
     * first word's base name (after the last '/') is not exactly this, and to an empty one. A process scan
     * may rule out other processes by their program name alone.
     */
    public static final String PROGRAM = ContainerdCommandLine.PROGRAM;

    /** Talos' CRI containerd arguments. */
    public static final String TALOS_CRI_SPEC =
            "--address /run/containerd/containerd.sock --config /etc/cri/containerd.toml";

    /** containerd's subcommands (urfave/cli runs one when it is the first positional word); others are ignored. */
    private static final Set<String> SUBCOMMANDS = Set.of("config", "publish", "oci-hook", "help", "h");

    private final Map<String, String> required;

    /** What one command line is. */
    public sealed interface Match {
    }

    /** Not the CRI containerd. */
    public record No() implements Match {
    }

    /** The CRI containerd, started with exactly one effective config file (absolute node path). */
    public record Yes(String config) implements Match {
    }

    /** Possibly the CRI containerd, but its command line does not say so unambiguously. */
    public record Doubt(String why) implements Match {
    }

    private ContainerdMatcher(Map<String, String> required) {
        this.required = required;
    }

    public static ContainerdMatcher talosCri() {
        return parse(TALOS_CRI_SPEC);
    }

    /**
     * Parses a spec of {@code --flag value} (or {@code --flag=value}) pairs separated by white space; the
     * flags are containerd's string flags ({@code config}/{@code c}, {@code address}/{@code a},
     * {@code log-level}/{@code l}, {@code root}, {@code state}).
     *
     * @throws IllegalArgumentException naming the bad token when the spec is not such pairs, a flag is not
     *                                  one of containerd's, a value is empty or a flag is required twice
     */
    public static ContainerdMatcher parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("expected '--flag value' pairs, got an empty spec");
        }
        List<String> tokens = splitAssignments(List.of(spec.trim().split("\\s+")));
        if (tokens.size() % 2 != 0) {
            throw new IllegalArgumentException("expected '--flag value' pairs, got an odd number of words in: "
                    + spec);
        }
        Map<String, String> required = new LinkedHashMap<>();
        for (int i = 0; i < tokens.size(); i += 2) {
            String flag = tokens.get(i);
            String value = tokens.get(i + 1);
            if (!isFlag(flag) || value.isEmpty() || value.startsWith("-")) {
                throw new IllegalArgumentException("expected '--flag value' pairs, got '" + flag + " "
                        + value + "' in: " + spec);
            }
            String canonical = ContainerdCommandLine.canonical(flag.replaceFirst("^--?", ""));
            if (canonical == null || !ContainerdCommandLine.takesValue(canonical)) {
                throw new IllegalArgumentException("flag " + flag + " is not one of containerd's flags"
                        + " (config, address, log-level, root, state) in: " + spec);
            }
            if (required.put(canonical, value) != null) {
                throw new IllegalArgumentException("flag " + flag + " is required twice in: " + spec);
            }
        }
        return new ContainerdMatcher(Collections.unmodifiableMap(required));
    }

    /** True only for an unambiguous match ({@link Yes}). */
    public boolean matches(List<String> cmdline) {
        return match(cmdline) instanceof Yes;
    }

    public Match match(List<String> cmdline) {
        ContainerdCommandLine.Parsed parsed = ContainerdCommandLine.parse(cmdline);
        if (parsed instanceof ContainerdCommandLine.NotContainerd) {
            return new No();
        }
        if (parsed instanceof ContainerdCommandLine.Unparsable bad) {
            // containerd would refuse it, or it is a containerd with flags this agent does not know: if it
            // names a required value anywhere it may be the CRI one.
            return mentionsRequiredValues(cmdline) ? new Doubt("containerd command line does not parse ("
                    + bad.problem() + ")") : new No();
        }
        ContainerdCommandLine.Flags flags = (ContainerdCommandLine.Flags) parsed;
        for (Map.Entry<String, String> want : required.entrySet()) {
            Set<String> given = new LinkedHashSet<>(flags.all(want.getKey()));
            if (given.isEmpty()) {
                String byDefault = want.getKey().equals("config") ? ContainerdCommandLine.DEFAULT_CONFIG : null;
                if (!want.getValue().equals(byDefault)) {
                    return new No();
                }
            } else if (given.contains(want.getValue()) && given.size() > 1) {
                return new Doubt("--" + want.getKey() + " is given " + flags.all(want.getKey()).size()
                        + " times with different values");
            } else if (!given.contains(want.getValue())) {
                return new No();
            }
        }
        Set<String> configs = new LinkedHashSet<>(flags.all("config"));
        if (configs.size() > 1) {
            return new Doubt("--config is given " + flags.all("config").size() + " times with different values");
        }
        if (!flags.positional().isEmpty() && SUBCOMMANDS.contains(flags.positional().get(0))) {
            return new Doubt("containerd runs its subcommand " + EvidenceRules.oneLine(flags.positional().get(0))
                    + ", not the daemon");
        }
        String config = configs.isEmpty() ? ContainerdCommandLine.DEFAULT_CONFIG : configs.iterator().next();
        if (!config.startsWith("/")) {
            return new Doubt("--config " + EvidenceRules.oneLine(config) + " is relative to containerd's"
                    + " working directory");
        }
        return new Yes(config);
    }

    /** The spec in canonical form; {@code parse(toString())} gives an equivalent matcher. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        required.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append("--").append(k).append(' ')
                .append(v));
        return sb.toString();
    }

    private boolean mentionsRequiredValues(List<String> cmdline) {
        for (String value : required.values()) {
            boolean seen = false;
            for (String word : cmdline.subList(1, cmdline.size())) {
                seen |= word.equals(value) || word.endsWith("=" + value);
            }
            if (!seen) {
                return false;
            }
        }
        return true;
    }

    private static boolean isFlag(String token) {
        return token.startsWith("-") && !token.replace("-", "").isEmpty();
    }

    /** Splits every {@code --flag=value} into {@code --flag} and {@code value}; other words stay as they are. */
    private static List<String> splitAssignments(List<String> args) {
        List<String> out = new ArrayList<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (a.startsWith("-") && eq > 0) {
                out.add(a.substring(0, eq));
                out.add(a.substring(eq + 1));
            } else {
                out.add(a);
            }
        }
        return out;
    }
}
