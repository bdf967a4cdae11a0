package dev.crifresh.coordinator.silence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SilenceMatcherTest {

    @Test
    void theDefaultsAreTwoSilencesTheNodeLabelAndItsInstanceWithAnyPort() {
        assertEquals(2, SilenceSpec.DEFAULTS.size());
        SilenceMatcher node = SilenceSpec.DEFAULTS.get(0).matchers().get(0);
        SilenceMatcher instance = SilenceSpec.DEFAULTS.get(1).matchers().get(0);
        assertEquals(1, SilenceSpec.DEFAULTS.get(0).matchers().size());
        assertEquals(1, SilenceSpec.DEFAULTS.get(1).matchers().size());
        assertEquals(new SilenceMatcher("node", "{node}", false, true), node);
        assertEquals("worker-a", node.render("worker-a"));
        assertTrue(instance.isRegex() && instance.isEqual());
        Pattern p = Pattern.compile(instance.render("worker-a"));
        assertTrue(p.matcher("worker-a").matches());
        assertTrue(p.matcher("worker-a:9100").matches());
        assertFalse(p.matcher("worker-ab:9100").matches());
    }

    @Test
    void aNodeNameIsRegexQuotedInsideARegexValue() {
        SilenceMatcher m = SilenceMatcher.parse("instance=~\"{node}(:.*)?\"");
        Pattern p = Pattern.compile(m.render("node-1.example.com"));
        assertTrue(p.matcher("node-1.example.com:9100").matches());
        assertFalse(p.matcher("node-1Xexample.com:9100").matches(), "the dot of the name is literal");
        assertEquals("worker.a", SilenceMatcher.parse("node=\"{node}\"").render("worker.a"), "not quoted in a plain value");
    }

    @Test
    void everyOperatorOfAlertmanagersSyntaxParses() {
        assertEquals(new SilenceMatcher("severity", "info", false, false), SilenceMatcher.parse("severity!=\"info\""));
        assertEquals(new SilenceMatcher("job", "node.*", true, false), SilenceMatcher.parse(" job !~ \"node.*\" "));
        assertEquals(new SilenceMatcher("node", "{node}", false, true), SilenceMatcher.parse("node={node}"));
        assertEquals(new SilenceMatcher("msg", "a \"q\" b", false, true), SilenceMatcher.parse("msg=\"a \\\"q\\\" b\""));
        assertEquals("msg=\"a \\\"q\\\" b\"", SilenceMatcher.parse("msg=\"a \\\"q\\\" b\"").toString());
    }

    @Test
    void aBadMatcherIsRejectedNamingIt() {
        for (String bad : List.of("", "node", "1node=\"x\"", "node==\"x\"", "node=\"x", "node=a b", "node=\"a\"b\"")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SilenceMatcher.parse(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
        IllegalArgumentException regex = assertThrows(IllegalArgumentException.class, () -> SilenceMatcher.parse("node=~\"(\""));
        assertTrue(regex.getMessage().contains("not a valid regex"), regex.getMessage());
    }

    @Test
    void oneSpecIsCommaSeparatedMatchersOptionallyInBraces() {
        assertEquals(List.of(new SilenceMatcher("node", "{node}", false, true), new SilenceMatcher("msg", "a,b", false, false)),
                SilenceSpec.parse("{node=\"{node}\", msg!=\"a,b\"}").matchers());
        assertEquals("{node=\"{node}\",msg!=\"a,b\"}", SilenceSpec.parse("node=\"{node}\",msg!=\"a,b\"").toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SilenceSpec.parse("node=\"{node}\",,"));
        assertTrue(e.getMessage().contains("is not a matcher"), e.getMessage());
    }

    @Test
    void specsThatWouldSilenceEveryNodeAreRefused() {
        for (String only : List.of("node!=\"{node}\"", "node=~\".*\"", "node=\"\"", "node!~\"{node}\"",
                "node=~\".*\",severity!=\"critical\"")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SilenceSpec.parse(only), only);
            assertTrue(e.getMessage().contains("every node") && e.getMessage().contains(only), e.getMessage());
        }
        SilenceSpec.parse("node=\"{node}\",severity!=\"critical\"");
    }
}
