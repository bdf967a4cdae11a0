package dev.crifresh.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IoErrorsTest {
    @TempDir
    Path dir;

    @Test
    void aMissingFile() {
        IOException e = assertThrows(IOException.class, () -> Files.readAllBytes(dir.resolve("absent")));
        assertEquals("no such file", IoErrors.describe(e));
    }

    @Test
    void aPathThroughAFile() throws IOException {
        Path file = Files.writeString(dir.resolve("file"), "x");
        IOException e = assertThrows(IOException.class, () -> Files.newDirectoryStream(file).close());
        assertEquals("not a directory", IoErrors.describe(e));
    }

    @Test
    void bytesThatAreNotUtf8() throws IOException {
        Path file = Files.write(dir.resolve("latin1"), "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1));
        IOException e = assertThrows(IOException.class, () -> Files.readString(file));
        assertEquals("not valid UTF-8", IoErrors.describe(e));
    }

    @Test
    void otherFailuresKeepTheirMessageOrTheirClassName() {
        assertEquals("disk on fire", IoErrors.describe(new IOException("disk on fire")));
        assertEquals("IOException", IoErrors.describe(new IOException()));
    }
}
