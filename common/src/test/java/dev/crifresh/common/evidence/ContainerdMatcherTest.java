package dev.crifresh.common.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class ContainerdMatcherTest {
    private static final ContainerdMatcher TALOS = ContainerdMatcher.talosCri();

    /** A command line as /proc/<pid>/cmdline holds it, written with '|' for the NUL separators. */
    private static List<String> cmdline(String nulSeparated) {
        return Arrays.asList(nulSeparated.split("\\|", -1));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @CsvSource(delimiter = ';', emptyValue = "", value = {
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; true",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|; true",
            "/bin/containerd|--config|/etc/cri/containerd.toml|--address|/run/containerd/containerd.sock; true",
            "/bin/containerd|--address=/run/containerd/containerd.sock|--config=/etc/cri/containerd.toml; true",
            "/bin/containerd|--address=/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; true",
            "/bin/containerd|--log-level|debug|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; true",
            "containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; true",
            "/usr/local/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; true",
            "-c|-a|/run/containerd/containerd.sock|-c|/etc/cri/containerd.toml; false",
            "/bin/containerd|-a|/run/containerd/containerd.sock|-c|/etc/cri/containerd.toml; true",
            "/bin/containerd|-address=/run/containerd/containerd.sock|-config|/etc/cri/containerd.toml; true",
            "/bin/containerd|-a=/run/containerd/containerd.sock|--c=/etc/cri/containerd.toml; true",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|--; true",
            // Talos' system containerd.
            "/bin/containerd|--address|/system/run/containerd/containerd.sock|--state|/system/run/containerd|--root|/system/var/lib/containerd; false",
            "/bin/containerd|--address=/system/run/containerd/containerd.sock|--state=/system/run/containerd|--root=/system/var/lib/containerd; false",
            "/bin/containerd|--address|/system/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            // A repeated flag with different values is a doubt, not a match (see doubts()).
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|--address|/system/run/containerd/containerd.sock; false",
            "/bin/containerd|--address|/system/run/containerd/containerd.sock|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            // After the terminator nothing is a flag.
            "/bin/containerd|--address|/run/containerd/containerd.sock|--|--config|/etc/cri/containerd.toml; false",
            // Other programs with the very same arguments.
            "/bin/containerd-shim-runc-v2|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            "/bin/sh|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            "/usr/bin/mycontainerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            "/bin/containerd/|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            "/containerd/bin/dockerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            // Almost the CRI containerd.
            "/bin/containerd|--address|/run/containerd/containerd.sock; false",
            "/bin/containerd|--config|/etc/cri/containerd.toml; false",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/containerd/config.toml; false",
            "/bin/containerd|--address|/run/containerd/containerd.sock.bak|--config|/etc/cri/containerd.toml; false",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config; false",
            "/bin/containerd|--address=|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml; false",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config=|/etc/cri/containerd.toml; false",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config||/etc/cri/containerd.toml; false",
            "/bin/containerd|/run/containerd/containerd.sock|--address|--config|/etc/cri/containerd.toml; false",
            "/bin/containerd; false",
            "''; false"})
    void talosMatcher(String nulSeparated, boolean expected) {
        assertEquals(expected, TALOS.matches(cmdline(nulSeparated)));
    }

    @Test
    void emptyCommandLineNeverMatches() {
        // A kernel thread or a zombie has an empty cmdline.
        assertEquals(false, TALOS.matches(List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "--address /run/containerd/containerd.sock --config /etc/cri/containerd.toml",
            "--address=/run/containerd/containerd.sock --config=/etc/cri/containerd.toml",
            "  --address\t/run/containerd/containerd.sock\n--config /etc/cri/containerd.toml  ",
            "--config /etc/cri/containerd.toml --address /run/containerd/containerd.sock"})
    void equivalentSpecsMatchTheSameProcesses(String spec) {
        ContainerdMatcher m = ContainerdMatcher.parse(spec);
        assertEquals(true, m.matches(cmdline(
                "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml")));
        assertEquals(false, m.matches(cmdline(
                "/bin/containerd|--address|/system/run/containerd/containerd.sock|--state|/system/run/containerd"
                        + "|--root|/system/var/lib/containerd")));
        assertEquals(false, m.matches(cmdline("/bin/containerd|--address|/run/containerd/containerd.sock")));
    }

    @Test
    void customSpecForAnotherDistribution() {
        ContainerdMatcher m = ContainerdMatcher.parse("--config /etc/containerd/config.toml");
        assertEquals(true, m.matches(cmdline("/usr/bin/containerd|--config|/etc/containerd/config.toml")));
        assertEquals(false, m.matches(cmdline("/usr/bin/containerd|-c|x|--config=/etc/containerd/config.toml")));
        // containerd's default config path counts when no --config is given.
        assertEquals(true, m.matches(cmdline("/usr/bin/containerd")));
        assertEquals(new ContainerdMatcher.Yes("/etc/containerd/config.toml"), m.match(cmdline("/usr/bin/containerd")));
    }

    @Test
    void valueMayContainAnEqualsSign() {
        ContainerdMatcher m = ContainerdMatcher.parse("--root=/var/lib/role=cri");
        assertEquals(true, m.matches(cmdline("containerd|--root|/var/lib/role=cri")));
        assertEquals(true, m.matches(cmdline("containerd|--root=/var/lib/role=cri")));
        assertEquals(false, m.matches(cmdline("containerd|--root=/var/lib/role")));
    }

    @ParameterizedTest(name = "bad spec: [{0}]")
    @NullSource
    @ValueSource(strings = {
            "",
            "   ",
            "--address",
            "--address /run/containerd/containerd.sock --config",
            "address /run/containerd/containerd.sock",
            "/run/containerd/containerd.sock --address",
            "--address --config",
            "--address=",
            "--address= /run/containerd/containerd.sock",
            "-- /run/containerd/containerd.sock",
            "--=x /y",
            "--address /a --address /b",
            "--address=/a --address /b"})
    void badSpecsAreRejectedWithTheSpecInTheMessage(String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ContainerdMatcher.parse(spec));
        assertTrue(e.getMessage().startsWith("expected '--flag value' pairs") || e.getMessage().contains("twice"),
                e.getMessage());
        if (spec != null && !spec.isBlank()) {
            assertTrue(e.getMessage().contains(spec), e.getMessage());
        }
    }

    @ParameterizedTest(name = "doubt: {0}")
    @ValueSource(strings = {
            // Given twice with different values: which one counts is not for the agent to guess.
            "/bin/containerd|--address|/run/containerd/containerd.sock|--address|/system/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml",
            "/bin/containerd|-a|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|-config=/etc/cri/other.toml",
            "/bin/containerd|--address|/run/containerd/containerd.sock|-c|/etc/cri/containerd.toml|--config|/etc/cri/containerd.toml|-c|/tmp/x.toml",
            // A subcommand after the flags: not the daemon.
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|config|dump",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|--|publish",
            // Flags containerd would refuse, or that this agent does not know.
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|--future-flag",
            "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|--root",
            "/bin/containerd|--address|/run/containerd/containerd.sock|---config|/etc/cri/containerd.toml"})
    void doubts(String nulSeparated) {
        assertTrue(TALOS.match(cmdline(nulSeparated)) instanceof ContainerdMatcher.Doubt,
                () -> TALOS.match(cmdline(nulSeparated)).toString());
    }

    @Test
    void theEffectiveConfigIsReported() {
        ContainerdMatcher byAddress = ContainerdMatcher.parse("--address /run/containerd/containerd.sock");
        assertEquals(new ContainerdMatcher.Yes("/etc/cri/containerd.toml"), byAddress.match(
                cmdline("/bin/containerd|-a|/run/containerd/containerd.sock|-c=/etc/cri/containerd.toml")));
        assertEquals(new ContainerdMatcher.Yes("/etc/containerd/config.toml"), byAddress.match(
                cmdline("/bin/containerd|-a|/run/containerd/containerd.sock")));
        assertTrue(byAddress.match(cmdline("/bin/containerd|-a|/run/containerd/containerd.sock|-c|relative.toml"))
                instanceof ContainerdMatcher.Doubt);
        // Stray positional words are ignored by containerd's root action: still the daemon.
        assertEquals(new ContainerdMatcher.Yes("/etc/cri/containerd.toml"), TALOS.match(cmdline(
                "/bin/containerd|--address|/run/containerd/containerd.sock|--config|/etc/cri/containerd.toml|--|x")));
        assertEquals(new ContainerdMatcher.No(), TALOS.match(cmdline(
                "/bin/containerd|--address|/system/run/containerd/containerd.sock|--future-flag")));
    }

    @Test
    void specFlagsMustBeContainerdFlags() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ContainerdMatcher.parse("--label role"));
        assertTrue(e.getMessage().contains("--label"), e.getMessage());
        assertEquals("--config /c --address /a", ContainerdMatcher.parse("-c /c -a=/a").toString());
    }

    @Test
    void toStringIsTheCanonicalSpecInOrder() {
        assertEquals(ContainerdMatcher.TALOS_CRI_SPEC, TALOS.toString());
        assertEquals("--config /c --address /a --root /r",
                ContainerdMatcher.parse("--config=/c --address /a   --root=/r").toString());
        ContainerdMatcher again = ContainerdMatcher.parse(TALOS.toString());
        assertEquals(TALOS.toString(), again.toString());
    }
}
