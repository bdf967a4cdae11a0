package dev.crifresh.agent.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Go's {@code filepath.Match} semantics, as containerd's import globs use them. */
class GoGlobTest {
    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource({
            "*.toml, cri.toml, true",
            "*.toml, .hidden.toml, true", // unlike a shell, Go's * matches a leading dot
            "*.toml, cri.toml.bak, false",
            "?0-*.toml, 10-a.toml, true",
            "[0-9]*, 7up, true",
            "[^0-9]*, 7up, false",
            "[a-c]x, bx, true",
            "[a-c]x, dx, false",
            "\\*.toml, *.toml, true",
            "\\*.toml, a.toml, false",
            "*a*a*a*a*b, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, false",
            "**, anything, true",
            "'', '', true"})
    void matchesLikeGo(String pattern, String name, boolean expected) {
        assertEquals(expected, GoGlob.matches(pattern, name));
    }

    @ParameterizedTest(name = "bad: {0}")
    @ValueSource(strings = {"[", "[a", "[]a]", "[a-]", "[z-a]", "x\\", "[^"})
    void malformedPatternsAreRefusedAsGoRefusesThem(String pattern) {
        assertThrows(IllegalArgumentException.class, () -> GoGlob.matches(pattern, "a"));
    }

    @Test
    void metaIsWhatGoTreatsAsAPattern() {
        assertTrue(GoGlob.hasMeta("conf.d/*.toml"));
        assertTrue(GoGlob.hasMeta("x?"));
        assertFalse(GoGlob.hasMeta("/etc/cri/conf.d/cri.toml"));
        for (String p : List.of("*", "?", "[", "\\")) {
            assertTrue(GoGlob.hasMeta(p), p);
        }
    }
}
