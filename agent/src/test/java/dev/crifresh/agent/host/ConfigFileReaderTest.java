package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.evidence.ConfigDigest;
import dev.crifresh.common.evidence.WatchedFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileReaderTest {
    @TempDir
    Path dir;

    private final ConfigFileReader reader = new ConfigFileReader(64);

    @Test
    void readsMtimeSizeAndDigestOfTheBytes() throws Exception {
        Path f = dir.resolve("cri.toml");
        byte[] content = "version = 3\n".getBytes(StandardCharsets.UTF_8);
        Files.write(f, content);
        Instant mtime = Instant.parse("2025-03-01T10:00:00.123456789Z");
        Files.setLastModifiedTime(f, FileTime.from(mtime));
        ConfigFileReader.FileRead read = reader.read("/etc/cri/conf.d/cri.toml", f);
        WatchedFile w = read.file();
        assertEquals("/etc/cri/conf.d/cri.toml", w.path());
        assertEquals(mtime, w.mtime());
        assertEquals(content.length, w.size());
        assertEquals(ConfigDigest.sha256Hex(content), w.sha256());
        assertArrayEquals(content, read.content());
        assertTrue(w.isReadable());
    }

    @Test
    void reportsMissingTooLargeAndNonRegularFilesAsUnreadable() throws Exception {
        assertEquals("no such file", reader.read("/x", dir.resolve("absent")).file().readError());
        Files.write(dir.resolve("big"), new byte[65]);
        ConfigFileReader.FileRead big = reader.read("/big", dir.resolve("big"));
        assertEquals("larger than 64 bytes", big.file().readError());
        assertNull(big.content());
        assertEquals("not a regular file", reader.read("/d", Files.createDirectory(dir.resolve("d"))).file().readError());
        Files.write(dir.resolve("exact"), new byte[64]);
        assertTrue(reader.read("/exact", dir.resolve("exact")).file().isReadable());
    }

    @Test
    void aFileThatKeepsChangingWhileReadIsTornAndUnreadableWithoutWaiting() throws Exception {
        Path f = dir.resolve("cri.toml");
        Files.writeString(f, "version = 3\n");
        AtomicInteger asked = new AtomicInteger();
        ChangeTimes moving = p -> Instant.EPOCH.plusNanos(asked.incrementAndGet()); // a write between every two looks

        ConfigFileReader.FileRead read = reader.read("/etc/cri/conf.d/cri.toml", f, List.of(), moving);

        assertTrue(read.torn());
        assertEquals("kept changing during 3 reads", read.file().readError());
        assertNull(read.content());
        assertEquals(2 * ConfigFileReader.READS, asked.get(), "each read looks at the ctime before and after the bytes");
    }

    @Test
    void aFileThatSettlesWithinTheReadsIsReadable() throws Exception {
        Path f = dir.resolve("cri.toml");
        Files.writeString(f, "version = 3\n");
        AtomicInteger asked = new AtomicInteger();
        // the first read sees the ctime move under it; the second and third agree
        ChangeTimes settling = p -> asked.incrementAndGet() < 2 ? Instant.EPOCH : Instant.EPOCH.plusSeconds(1);

        ConfigFileReader.FileRead read = reader.read("/etc/cri/conf.d/cri.toml", f, List.of(), settling);

        assertFalse(read.torn());
        assertTrue(read.file().isReadable(), read.file().readError());
        assertEquals(6, asked.get());
    }

    @Test
    void anUnreadableFileIsNotTorn() {
        assertFalse(reader.read("/x", dir.resolve("absent")).torn(), "no use reading a missing file again soon");
    }
}
