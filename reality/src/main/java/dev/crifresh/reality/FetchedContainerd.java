package dev.crifresh.reality;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A containerd generation unpacked by {@code reality/bin/fetch-containerd} (never installed): the script prints
 * one line per generation, {@code <generation> <version> <binary>}, and reuses what is already in its cache.
 *
 * @param generation e.g. {@code 2.1}
 * @param version    the Debian package version
 * @param binDir     the directory holding its {@code containerd} and {@code containerd-shim-runc-v2}
 */
public record FetchedContainerd(String generation, String version, Path binDir) {
    private static final Path SCRIPT = Path.of("bin", "fetch-containerd");

    /** The fetched {@code generation}, or why it cannot be had (the script failed, or does not list it). */
    public static Result find(String generation) {
        Path script = Files.isExecutable(SCRIPT) ? SCRIPT : Path.of("reality").resolve(SCRIPT);
        Commands.Result run = Commands.run(List.of(script.toString()));
        if (!run.ok()) {
            return new Result(Optional.empty(), "reality/bin/fetch-containerd exited " + run.exitCode() + ": "
                    + lastLine(run.output()));
        }
        for (String line : run.output().lines().toList()) {
            String[] words = line.strip().split(" ");
            if (words.length == 3 && words[0].equals(generation) && Files.isExecutable(Path.of(words[2]))) {
                Path bin = Path.of(words[2]).getParent();
                if (!Files.isExecutable(bin.resolve("containerd-shim-runc-v2"))) {
                    return new Result(Optional.empty(), "containerd " + generation + " has no containerd-shim-runc-v2 in " + bin);
                }
                return new Result(Optional.of(new FetchedContainerd(generation, words[1], bin)), null);
            }
        }
        return new Result(Optional.empty(), "reality/bin/fetch-containerd does not list containerd " + generation);
    }

    /** @param why null when found */
    public record Result(Optional<FetchedContainerd> containerd, String why) {
    }

    private static String lastLine(String output) {
        List<String> lines = output.strip().lines().toList();
        return lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
    }
}
