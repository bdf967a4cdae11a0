package dev.crifresh.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StrictUtf8Test {
    @Test
    void validTextDecodesInvalidBytesAreRefusedNotReplaced() {
        assertEquals(Optional.of("pässwörd"), StrictUtf8.decode("pässwörd".getBytes(StandardCharsets.UTF_8)));
        assertTrue(StrictUtf8.decode(new byte[] {'a', (byte) 0xff, 'b'}).isEmpty());
        assertTrue(StrictUtf8.decode(new byte[] {(byte) 0xc3}).isEmpty()); // truncated sequence
        assertTrue(StrictUtf8.decode(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}).isEmpty()); // surrogate
        // The lenient decoder maps both of these to the same text; the strict one refuses both.
        assertEquals(new String(new byte[] {'x', (byte) 0xfe}, StandardCharsets.UTF_8),
                new String(new byte[] {'x', (byte) 0xff}, StandardCharsets.UTF_8));
    }
}
