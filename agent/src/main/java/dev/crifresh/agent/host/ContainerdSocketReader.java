package dev.crifresh.agent.host;

import dev.crifresh.common.evidence.ContainerdCommandLine;
import dev.crifresh.common.evidence.ContainerdSocket;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the CRI containerd's gRPC socket, the clock witness ({@link ContainerdSocket}): the path from
 * containerd's own {@code --address} (as containerd reads its flags), resolved under the host root, and its
 * mtime and ctime. Anything but a socket inode is not a witness. Blocking file I/O.
 */
public final class ContainerdSocketReader {
    /** {@code S_IFMT} and {@code S_IFSOCK} of {@code st_mode}. */
    private static final int TYPE_MASK = 0170000;
    private static final int SOCKET = 0140000;

    private final HostPaths paths;
    private final ChangeTimes times;

    public ContainerdSocketReader(HostPaths paths, ChangeTimes times) {
        this.paths = paths;
        this.times = times;
    }

    /**
     * The socket named by this command line's {@code --address}; null when the command line names none (then
     * containerd may take its address from its config, which the agent does not follow: no witness).
     */
    public ContainerdSocket read(List<String> cmdline) {
        String address = address(cmdline);
        if (address == null) {
            return null;
        }
        if (!address.startsWith("/")) {
            return ContainerdSocket.unusable(address, "not an absolute path");
        }
        HostPaths.Resolved resolved = paths.resolve(address);
        if (resolved.error() != null) {
            return ContainerdSocket.unusable(address, resolved.error());
        }
        Path onHost = paths.onHost(resolved.realPath());
        try {
            BasicFileAttributes a = Files.readAttributes(onHost, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) Files.getAttribute(onHost, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if ((mode & TYPE_MASK) != SOCKET) {
                return ContainerdSocket.unusable(address, "not a socket");
            }
            return ContainerdSocket.found(address, a.lastModifiedTime().toInstant(), times.ctime(onHost));
        } catch (NoSuchFileException e) {
            return ContainerdSocket.unusable(address, "no such socket");
        } catch (IOException | UnsupportedOperationException e) {
            return ContainerdSocket.unusable(address, IoErrors.describe(e instanceof IOException io ? io
                    : new IOException(e.getMessage(), e)));
        }
    }

    /** The one value of {@code --address}/{@code -a}, or null when none or several different ones are given. */
    static String address(List<String> cmdline) {
        if (!(ContainerdCommandLine.parse(cmdline) instanceof ContainerdCommandLine.Flags flags)) {
            return null;
        }
        Set<String> given = new LinkedHashSet<>(flags.all("address"));
        return given.size() == 1 ? given.iterator().next() : null;
    }
}
