package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ContainerdListener;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The unix sockets of one process's network namespace, as the kernel lists them in {@code /proc/<pid>/net/unix}
 * ({@code unix_seq_show} in {@code net/unix/af_unix.c}): one line per socket,
 * {@code Num: RefCount Protocol Flags Type St Inode[ Path]}, the path as it was bound (an abstract name with a
 * leading {@code @}). Readable for any pid without ptrace access: the agent needs neither
 * {@code CAP_SYS_PTRACE} nor a mount. Blocking file I/O.
 *
 * <p>A listening socket is a stream socket whose flags carry {@code __SO_ACCEPTCON} ({@code 00010000}, set by
 * {@code listen()}) in state {@code SS_UNCONNECTED} ({@code 01}); the connections it accepted carry its path
 * too, but in state {@code SS_CONNECTED} ({@code 03}) without the flag. A closed socket leaves the table at once,
 * even when its file stays on disk.
 */
public final class UnixSocketTable {
    /** The columns of the header line, as every kernel since 2.6 prints it. */
    static final List<String> HEADER = List.of("Num", "RefCount", "Protocol", "Flags", "Type", "St", "Inode", "Path");
    private static final int SO_ACCEPTCON = 0x10000;
    private static final int SOCK_STREAM = 1;
    private static final int SS_UNCONNECTED = 1;
    /** One socket: the kernel's fixed-width hex fields, the inode, then one space and the path as bound. */
    private static final Pattern LINE = Pattern.compile(
            "[0-9a-fA-F]+: [0-9A-Fa-f]{8} [0-9A-Fa-f]{8} ([0-9A-Fa-f]{8}) ([0-9A-Fa-f]{4}) ([0-9A-Fa-f]{2}) +(\\d+)(?: (.*))?");

    /** One line of the table. {@code path} is null for an unbound socket. */
    record Entry(int flags, int type, int state, long inode, String path) {
        boolean listening() {
            return (flags & SO_ACCEPTCON) != 0 && type == SOCK_STREAM && state == SS_UNCONNECTED;
        }
    }

    /** The sockets of a table; {@code skipped} counts lines that are not a socket (a bound name may hold a newline). */
    record Parsed(List<Entry> entries, int skipped) {
    }

    private UnixSocketTable() {
    }

    /**
     * Whether a socket listens at {@code address} in the network namespace of {@code pid}, read from
     * {@code <procRoot>/<pid>/net/unix}. The address is compared byte for byte with the path as bound: the
     * string containerd passes to {@code bind} is its address as given, never resolved.
     */
    public static ContainerdListener read(Path procRoot, long pid, String address) {
        Path table = procRoot.resolve(Long.toString(pid)).resolve("net").resolve("unix");
        String text;
        try {
            text = new String(Files.readAllBytes(table), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return ContainerdListener.unreadable(address, "socket table " + table + " unreadable: "
                    + IoErrors.describe(e));
        }
        Parsed parsed;
        try {
            parsed = parse(text);
        } catch (IllegalArgumentException e) {
            return ContainerdListener.unreadable(address, "socket table " + table + ": " + e.getMessage());
        }
        return listenerAt(parsed, address);
    }

    /** What {@code parsed} shows at {@code address}. */
    static ContainerdListener listenerAt(Parsed parsed, String address) {
        if (address.isEmpty() || address.indexOf('\uFFFD') >= 0) {
            return ContainerdListener.unreadable(address, "containerd's address is empty or not valid UTF-8");
        }
        int connected = 0;
        for (Entry e : parsed.entries()) {
            if (address.equals(e.path())) {
                if (e.listening()) {
                    return ContainerdListener.listening(address);
                }
                connected++;
            }
        }
        return ContainerdListener.notListening(address, connected == 0 ? "no socket is bound there"
                : connected + " socket(s) bound there, none listening");
    }

    /**
     * Parses a table. A first line other than the kernel's header means a format this agent does not know
     * (an {@link IllegalArgumentException}); a later line that is not a socket is skipped and counted.
     */
    static Parsed parse(String text) {
        String[] lines = text.split("\n", -1);
        if (lines.length == 0 || !List.of(lines[0].trim().split("\\s+")).equals(HEADER)) {
            throw new IllegalArgumentException("not the kernel's format (first line: '"
                    + (lines.length == 0 ? "" : lines[0].strip()) + "')");
        }
        List<Entry> entries = new ArrayList<>();
        int skipped = 0;
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty() && i == lines.length - 1) {
                break; // the table's final newline
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                skipped++;
                continue;
            }
            try {
                entries.add(new Entry(Integer.parseUnsignedInt(m.group(1), 16), Integer.parseInt(m.group(2), 16),
                        Integer.parseInt(m.group(3), 16), Long.parseUnsignedLong(m.group(4)), m.group(5)));
            } catch (NumberFormatException e) {
                skipped++;
            }
        }
        return new Parsed(entries, skipped);
    }
}
