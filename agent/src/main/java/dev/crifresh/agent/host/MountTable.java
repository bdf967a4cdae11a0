package dev.crifresh.agent.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A process's mount table as the kernel shows it in {@code /proc/<pid>/mountinfo} (proc(5)): one mount
 * per line, in the order they were stacked. Paths are relative to that process's root and unescaped
 * ({@code \040} and the other octal escapes the kernel writes for spaces, tabs, newlines, backslashes).
 */
public final class MountTable {
    /**
     * @param device     {@code major:minor} of the mounted file system
     * @param root       the directory of that file system mounted here (not {@code /} for a bind mount of
     *                   a subdirectory or file)
     * @param mountPoint where it is mounted, relative to the process's root
     * @param fsType     the file system type
     * @param source     the mount source ({@code tmpfs}, a device, …)
     */
    public record Mount(String device, String root, String mountPoint, String fsType, String source) {
    }

    private MountTable() {
    }

    public static List<Mount> read(Path mountinfo) throws IOException {
        return parse(new String(Files.readAllBytes(mountinfo), StandardCharsets.UTF_8));
    }

    /** @throws IOException naming the line when one does not have mountinfo's shape */
    public static List<Mount> parse(String text) throws IOException {
        List<Mount> mounts = new ArrayList<>();
        int number = 0;
        for (String line : text.split("\n")) {
            number++;
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(" ");
            int dash = -1;
            for (int i = 6; i < f.length; i++) {
                if (f[i].equals("-")) {
                    dash = i;
                    break;
                }
            }
            if (f.length < 7 || dash < 0 || dash + 2 >= f.length) {
                throw new IOException("mountinfo line " + number + " is not in the kernel's format");
            }
            mounts.add(new Mount(f[2], unescape(f[3]), unescape(f[4]), unescape(f[dash + 1]), unescape(f[dash + 2])));
        }
        return mounts;
    }

    /** The kernel's {@code \ooo} octal escapes. */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && isOctal(s, i + 1) && isOctal(s, i + 2) && isOctal(s, i + 3)) {
                out.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isOctal(String s, int i) {
        return i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '7';
    }
}
