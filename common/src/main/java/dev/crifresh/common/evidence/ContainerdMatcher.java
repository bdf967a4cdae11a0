package dev.crifresh.common.evidence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recognises the CRI containerd by its command line: the program's base name is {@code containerd}
 * and every required {@code --flag value} pair is present ({@code --flag=value} is accepted too).
 * When a flag is given more than once the last value counts, as it does for containerd itself.
 * On Talos this tells the CRI containerd ({@code --address /run/containerd/containerd.sock}) from the
 * system containerd ({@code --address /system/run/containerd/containerd.sock}).
 */
public final class ContainerdMatcher {
    /** Talos' CRI containerd arguments. */
    public static final String TALOS_CRI_SPEC =
            "--address /run/containerd/containerd.sock --config /etc/cri/containerd.toml";

    private final Map<String, String> required;

    private ContainerdMatcher(Map<String, String> required) {
        this.required = required;
    }

    public static ContainerdMatcher talosCri() {
        return parse(TALOS_CRI_SPEC);
    }

    /**
     * Parses a spec of {@code --flag value} (or {@code --flag=value}) pairs separated by white space.
     *
     * @throws IllegalArgumentException naming the bad token when the spec is not such pairs, a value is
     *                                  empty or a flag is required twice
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
            if (required.put(flag, value) != null) {
                throw new IllegalArgumentException("flag " + flag + " is required twice in: " + spec);
            }
        }
        return new ContainerdMatcher(Collections.unmodifiableMap(required));
    }

    public boolean matches(List<String> cmdline) {
        if (cmdline.isEmpty() || !baseName(cmdline.get(0)).equals("containerd")) {
            return false;
        }
        List<String> args = splitAssignments(cmdline.subList(1, cmdline.size()));
        for (Map.Entry<String, String> want : required.entrySet()) {
            String effective = null;
            for (int i = 0; i + 1 < args.size(); i++) {
                if (args.get(i).equals(want.getKey())) {
                    effective = args.get(i + 1);
                }
            }
            if (!want.getValue().equals(effective)) {
                return false;
            }
        }
        return true;
    }

    /** The spec in canonical form; {@code parse(toString())} gives an equivalent matcher. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        required.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append(' ').append(v));
        return sb.toString();
    }

    private static boolean isFlag(String token) {
        return token.startsWith("-") && !token.replace("-", "").isEmpty();
    }

    private static String baseName(String program) {
        int slash = program.lastIndexOf('/');
        return slash < 0 ? program : program.substring(slash + 1);
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
