package dev.crifresh.agent.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceAccountTokenTest {
    @TempDir
    Path dir;
    private final AtomicLong nanos = new AtomicLong(1_000);

    private ServiceAccountToken token(Path file) {
        return new ServiceAccountToken(file, Duration.ofMinutes(1), nanos::get);
    }

    @Test
    void readsTheFileWithoutItsTrailingNewline() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "abc.def.ghi\n");
        assertEquals("abc.def.ghi", token(file).get());
    }

    @Test
    void keepsItsCopyUntilTheMaxAgeThenReadsTheRotatedFile() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "one");
        ServiceAccountToken t = token(file);
        assertEquals("one", t.get());
        Files.writeString(file, "two");
        nanos.addAndGet(Duration.ofSeconds(59).toNanos());
        assertEquals("one", t.get());
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertEquals("two", t.get());
    }

    @Test
    void aRejectedTokenIsReadAgainAtOnceButARejectionOfAnOlderOneChangesNothing() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "one");
        ServiceAccountToken t = token(file);
        assertEquals("one", t.get());
        Files.writeString(file, "two");
        t.rejected("zero"); // a late 401 for a token we no longer hold
        assertEquals("one", t.get());
        t.rejected("one");
        assertEquals("two", t.get());
    }

    @Test
    void aMissingOrEmptyFileIsAnError() throws Exception {
        assertThrows(IOException.class, () -> token(dir.resolve("absent")).get());
        Path empty = Files.writeString(dir.resolve("token"), " \n");
        assertThrows(IOException.class, () -> token(empty).get());
    }
}
