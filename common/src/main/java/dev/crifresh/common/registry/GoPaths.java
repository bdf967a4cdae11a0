package dev.crifresh.common.registry;

import java.util.ArrayDeque;
import java.util.Deque;

/** Go's {@code path/filepath} on Linux, as containerd builds the paths it reads under {@code config_path}. */
final class GoPaths {
    private GoPaths() {
    }

    /**
     * {@code filepath.Clean} of an absolute path: repeated slashes and {@code .} dropped, each {@code ..} removes the
     * name before it (lexically, before any symlink is followed), none climbs above {@code /}.
     */
    static String clean(String absolute) {
        if (!absolute.startsWith("/")) {
            throw new IllegalArgumentException("not absolute: " + absolute);
        }
        Deque<String> names = new ArrayDeque<>();
        for (String name : absolute.split("/")) {
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                names.pollLast();
            } else {
                names.addLast(name);
            }
        }
        return "/" + String.join("/", names);
    }

    /** {@code filepath.SplitList}: the list separated by {@code :}; an empty string is no entry at all. */
    static java.util.List<String> splitList(String list) {
        return list.isEmpty() ? java.util.List.of() : java.util.List.of(list.split(":", -1));
    }
}
