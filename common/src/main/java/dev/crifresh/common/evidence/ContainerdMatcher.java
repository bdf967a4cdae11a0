package dev.crifresh.common.evidence;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recognises the CRI containerd by its command line: the program's base name is {@code containerd}
 * and every required {@code --flag value} pair is present ({@code --flag=value} is accepted too).
 * On Talos this tells the CRI containerd ({@code --address /run/containerd/containerd.sock}) from the
 * system containerd ({@code --address /system/run/containerd/containerd.sock}).
 */
public final class ContainerdMatcher {
    /** Talos' CRI containerd arguments. */
    public static final String TALOS_CRI_SPEC =
            "--address /run/containerd/containerd.sock --config /etc/cri/containerd.toml";

    private final Map<String, String> required;

    private ContainerdMatcher(Map<String, String> required) {
        this.required = Map.copyOf(required);
    }

    public static ContainerdMatcher talosCri() {
        return parse(TALOS_CRI_SPEC);
    }

    /**
     * Parses a spec of {@code --flag value} pairs separated by white space.
     *
     * @throws IllegalArgumentException naming the bad token when the spec is not such pairs
     */
    public static ContainerdMatcher parse(String spec) {
        List<String> tokens = normalise(List.of(spec.trim().split("\\s+")));
        if (tokens.isEmpty() || tokens.size() % 2 != 0) {
            throw new IllegalArgumentException("expected '--flag value' pairs, got: " + spec);
        }
        Map<String, String> required = new LinkedHashMap<>();
        for (int i = 0; i < tokens.size(); i += 2) {
            String flag = tokens.get(i);
            if (!flag.startsWith("-") || tokens.get(i + 1).startsWith("-")) {
                throw new IllegalArgumentException("expected '--flag value' pairs, got '" + flag + " "
                        + tokens.get(i + 1) + "' in: " + spec);
            }
            required.put(flag, tokens.get(i + 1));
        }
        return new ContainerdMatcher(required);
    }

    public boolean matches(List<String> cmdline) {
        if (cmdline.isEmpty() || !baseName(cmdline.get(0)).equals("containerd")) {
            return false;
        }
        List<String> args = normalise(cmdline.subList(1, cmdline.size()));
        for (Map.Entry<String, String> want : required.entrySet()) {
            boolean found = false;
            for (int i = 0; i + 1 < args.size() && !found; i++) {
                found = args.get(i).equals(want.getKey()) && args.get(i + 1).equals(want.getValue());
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        required.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append(' ').append(v));
        return sb.toString();
    }

    private static String baseName(String program) {
        int slash = program.lastIndexOf('/');
        return slash < 0 ? program : program.substring(slash + 1);
    }

    private static List<String> normalise(List<String> args) {
        List<String> out = new ArrayList<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (a.startsWith("-") && eq > 0) {
                out.add(a.substring(0, eq));
                out.add(a.substring(eq + 1));
            } else if (!a.isEmpty()) {
                out.add(a);
            }
        }
        return out;
    }
}
