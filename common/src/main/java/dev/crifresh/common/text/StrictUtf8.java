package dev.crifresh.common.text;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * UTF-8 decoding that refuses malformed input instead of replacing it with U+FFFD: two different byte
 * strings must never decode to the same text (a replaced byte in a credential would fingerprint as
 * another credential), and containerd's TOML parser refuses invalid UTF-8 too.
 */
public final class StrictUtf8 {
    private StrictUtf8() {
    }

    /** The text, or empty when the bytes are not valid UTF-8. */
    public static Optional<String> decode(byte[] bytes) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
