package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigDigestTest {
    private static final Instant T = Instant.parse("2025-03-01T10:00:02Z");
    private static final String A = "/etc/cri/containerd.toml";
    private static final String B = "/etc/cri/conf.d/cri.toml";

    private static WatchedFile file(String path, String content) {
        return WatchedFile.readable(path, T, content.length(), Given.sha(content));
    }

    private static final List<WatchedFile> BASE = List.of(file(A, "version = 3\n"), file(B, "## merged v1\n"));

    @ParameterizedTest(name = "sha256({0})")
    @CsvSource({
            "'', e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "abc, ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"})
    void sha256HexIsTheStandardLowercaseHex(String input, String expected) {
        assertEquals(expected, ConfigDigest.sha256Hex(input.getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void digestIsSha256OverSortedPathNulHashNewline() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        // B sorts before A ("/etc/cri/conf.d/..." < "/etc/cri/containerd.toml").
        String canonical = B + "\0" + Given.sha("## merged v1\n") + "\n" + A + "\0" + Given.sha("version = 3\n") + "\n";
        String expected = "sha256:" + HexFormat.of().formatHex(sha.digest(canonical.getBytes(StandardCharsets.UTF_8)));

        assertEquals(Optional.of(expected), ConfigDigest.of(BASE));
        assertTrue(expected.matches("sha256:[0-9a-f]{64}"));
    }

    @Test
    void orderOfTheFilesDoesNotMatter() {
        List<WatchedFile> reversed = new ArrayList<>(BASE);
        Collections.reverse(reversed);
        assertEquals(ConfigDigest.of(BASE), ConfigDigest.of(reversed));
    }

    @Test
    void anIdenticalRewriteKeepsTheDigest() {
        List<WatchedFile> rewritten = List.of(
                WatchedFile.readable(A, T.plusSeconds(3600), 12, Given.sha("version = 3\n")),
                WatchedFile.readable(B, T.plusSeconds(7200), 999, Given.sha("## merged v1\n")));
        assertEquals(ConfigDigest.of(BASE), ConfigDigest.of(rewritten), "mtime and size are not content");
    }

    static Stream<Arguments> differentConfigs() {
        return Stream.of(
                Arguments.of("one byte changed", List.of(file(A, "version = 3\n"), file(B, "## merged v2\n"))),
                Arguments.of("a file renamed", List.of(file(A, "version = 3\n"), file(B + ".bak", "## merged v1\n"))),
                Arguments.of("a file added", List.of(file(A, "version = 3\n"), file(B, "## merged v1\n"),
                        file("/etc/cri/conf.d/01-registries.part", "x"))),
                Arguments.of("a file dropped", List.of(file(A, "version = 3\n"))),
                Arguments.of("contents swapped between files",
                        List.of(file(A, "## merged v1\n"), file(B, "version = 3\n"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("differentConfigs")
    void anyContentOrPathChangeChangesTheDigest(String name, List<WatchedFile> files) {
        assertTrue(ConfigDigest.of(files).isPresent());
        assertNotEquals(ConfigDigest.of(BASE), ConfigDigest.of(files));
    }

    static Stream<Arguments> noDigest() {
        return Stream.of(
                Arguments.of("no files", List.of()),
                Arguments.of("one file missing", List.of(file(A, "version = 3\n"),
                        WatchedFile.unreadable(B, "NoSuchFileException: " + B))),
                Arguments.of("one file oversized", List.of(file(A, "version = 3\n"),
                        WatchedFile.unreadable(B, "larger than the 1 MiB limit"))),
                Arguments.of("a readable entry without a hash", List.of(file(A, "version = 3\n"),
                        new WatchedFile(B, T, T, "mtime", 3, null, null))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("noDigest")
    void noDigestUnlessEveryFileWasRead(String name, List<WatchedFile> files) {
        assertEquals(Optional.empty(), ConfigDigest.of(files));
    }
}
