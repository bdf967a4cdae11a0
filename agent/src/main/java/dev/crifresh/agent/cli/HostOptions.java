package dev.crifresh.agent.cli;

import dev.crifresh.agent.host.MountPolicy;
import dev.crifresh.agent.host.WatchGlobs;
import dev.crifresh.common.attest.AttestationPolicy;
import dev.crifresh.common.evidence.ContainerdMatcher;
import dev.crifresh.common.evidence.RuleSettings;
import dev.crifresh.common.registry.ContainerdReading;
import dev.crifresh.common.registry.CredentialFingerprint;
import dev.crifresh.common.text.DurationText;
import dev.crifresh.common.text.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/** The options that say where and how to observe the node; shared by {@code run} and {@code observe}. */
final class HostOptions {
    enum Mode { talos, generic }

    @Option(names = "--proc-root", paramLabel = "DIR", defaultValue = "${env:CRIFRESH_PROC_ROOT:-/proc}",
            description = "The host's /proc (the pod runs with hostPID). Env CRIFRESH_PROC_ROOT. Default: ${DEFAULT-VALUE}.")
    Path procRoot;

    @Option(names = "--host-root", paramLabel = "DIR", defaultValue = "${env:CRIFRESH_HOST_ROOT:-/host}",
            description = "Where the host's file system is mounted; watched paths resolve under it."
                    + " Env CRIFRESH_HOST_ROOT. Default: ${DEFAULT-VALUE}.")
    Path hostRoot;

    @Option(names = "--watch", paramLabel = "GLOB", split = ",",
            defaultValue = "${env:CRIFRESH_WATCH:-/etc/cri/containerd.toml,/etc/cri/conf.d/cri.toml,/etc/cri/conf.d/*.part}",
            description = "Config files containerd loads (repeatable or comma-separated; wildcards in the file"
                    + " name only). Env CRIFRESH_WATCH. Default:"
                    + " /etc/cri/containerd.toml, /etc/cri/conf.d/cri.toml and /etc/cri/conf.d/*.part")
    List<String> watch;

    @Option(names = "--containerd-match", paramLabel = "SPEC",
            defaultValue = "${env:CRIFRESH_CONTAINERD_MATCH:-" + ContainerdMatcher.TALOS_CRI_SPEC + "}",
            description = "'--flag value' pairs the CRI containerd's command line must contain."
                    + " Env CRIFRESH_CONTAINERD_MATCH. Default: '${DEFAULT-VALUE}'.")
    String containerdMatch;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "${env:CRIFRESH_MODE:-talos}",
            description = "talos: configs live on tmpfs, a write that seems older than the boot is a clock"
                    + " anomaly; generic: no such check. Env CRIFRESH_MODE. Default: ${DEFAULT-VALUE}.")
    Mode mode;

    @Option(names = "--margin", paramLabel = "DURATION", defaultValue = "${env:CRIFRESH_MARGIN:-50ms}",
            description = "How much later than the newest config write containerd must have started."
                    + " At least 20ms (the coordinator's floor). Env CRIFRESH_MARGIN. Default: ${DEFAULT-VALUE}.")
    Duration margin;

    @Option(names = "--fingerprint-key", paramLabel = "FILE", defaultValue = "${env:CRIFRESH_FINGERPRINT_KEY}",
            description = "The credential-fingerprint HMAC key (the trust bundle's fingerprint.key)."
                    + " Env CRIFRESH_FINGERPRINT_KEY.")
    Path fingerprintKey;

    @Option(names = "--cri-socket", paramLabel = "PATH", defaultValue = "${env:CRIFRESH_CRI_SOCKET}",
            description = "Opt-in runtime-status proof: ask the CRI runtime on this unix socket (CRI Status, verbose)"
                    + " which registry credentials it holds. Off by default: the CRI socket is root on the node."
                    + " Env CRIFRESH_CRI_SOCKET.")
    Path criSocket;

    @Option(names = "--containerd-introspection", negatable = true, arity = "0..1",
            defaultValue = "${env:CRIFRESH_CONTAINERD_INTROSPECTION:-false}", fallbackValue = "true",
            description = "Opt-in check on containerd's own evidence (containerd 1.7 and later): ask its introspection"
                    + " service on its own socket (its --address under the host root) which process answers and when"
                    + " it loaded its registry config; a node it contradicts is stale, one whose socket does not"
                    + " answer is unknown. It never proves fresh on its own. Env CRIFRESH_CONTAINERD_INTROSPECTION."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean containerdIntrospection;

    @Option(names = "--expected-mount", paramLabel = "PATH", split = ",",
            defaultValue = "${env:CRIFRESH_EXPECTED_MOUNTS:-}",
            description = "A mount point on the way to the config that the platform creates (repeatable or"
                    + " comma-separated; Talos' own are recognised without it). Any other mount on a config file,"
                    + " its directory or a directory above makes the node unknown (ConfigPathMounted)."
                    + " Env CRIFRESH_EXPECTED_MOUNTS.")
    List<String> expectedMounts;

    @Option(names = "--read-through-containerd-root", negatable = true,
            defaultValue = "${env:CRIFRESH_READ_THROUGH_CONTAINERD_ROOT:-false}",
            description = "Read the config through containerd's own root and mount namespace (/proc/<pid>/root;"
                    + " needs CAP_SYS_PTRACE) instead of --host-root. Env CRIFRESH_READ_THROUGH_CONTAINERD_ROOT."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean throughContainerdRoot;

    /** A {@code --containerd-generation} value: the generation named, or null for {@code auto}. */
    record GenerationChoice(ContainerdReading.Generation generation) {
    }

    /** {@code --containerd-generation}'s values: {@code auto}, a family, or a 2.x generation exactly. */
    static final class GenerationConverter implements ITypeConverter<GenerationChoice> {
        static final String VALUES = "auto, one, two, 2.1, 2.2, 2.3";

        @Override
        public GenerationChoice convert(String value) {
            return new GenerationChoice(switch (value.strip()) {
                case "auto" -> null;
                case "one" -> ContainerdReading.Generation.ONE;
                case "two" -> ContainerdReading.Generation.TWO;
                case "2.1" -> ContainerdReading.Generation.V2_1;
                case "2.2" -> ContainerdReading.Generation.V2_2;
                case "2.3" -> ContainerdReading.Generation.V2_3;
                default -> throw new TypeConversionException("'" + value + "' is not a containerd generation (one of "
                        + VALUES + "; containerd 2.0 is 'two')");
            });
        }
    }

    @Option(names = "--containerd-generation", paramLabel = "auto|one|two|2.1|2.2|2.3",
            defaultValue = "${env:CRIFRESH_CONTAINERD_GENERATION:-auto}", converter = GenerationConverter.class,
            description = "Which containerd reads the config: one (1.x), two (some 2.x: 2.0 to 2.3 must agree), or"
                    + " exactly 2.1, 2.2 or 2.3 — they read registry credentials from different sections and migrate"
                    + " and merge imports differently. auto: the readings must agree, except that talos mode tells"
                    + " 1.x from 2.x by the root config's version; a shape they disagree on is unknown."
                    + " Name a generation exactly only when every node of the cluster runs it."
                    + " Env CRIFRESH_CONTAINERD_GENERATION. Default: ${DEFAULT-VALUE}.")
    GenerationChoice generation;

    /** The generation named, or null for auto. */
    ContainerdReading.Generation generation() {
        return generation == null ? null : generation.generation();
    }

    MountPolicy mounts(CommandSpec spec) {
        List<String> expected = expectedMounts == null ? List.of()
                : expectedMounts.stream().filter(m -> !m.isBlank()).toList();
        for (String m : expected) {
            if (!m.startsWith("/")) {
                throw new ParameterException(spec.commandLine(), "--expected-mount " + m + ": not an absolute path");
            }
        }
        return new MountPolicy(throughContainerdRoot, Set.copyOf(expected), "/");
    }

    ContainerdMatcher matcher(CommandSpec spec) {
        try {
            return ContainerdMatcher.parse(containerdMatch);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--containerd-match: " + e.getMessage());
        }
    }

    List<String> watchGlobs(CommandSpec spec) {
        if (watch == null || watch.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--watch: at least one config file must be watched");
        }
        for (String g : watch) {
            try {
                WatchGlobs.validate(g);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--watch: " + e.getMessage());
            }
        }
        return List.copyOf(watch);
    }

    RuleSettings rules(CommandSpec spec) {
        if (margin.compareTo(AttestationPolicy.DEFAULT_MARGIN_FLOOR) < 0) {
            throw new ParameterException(spec.commandLine(), "--margin " + DurationText.format(margin)
                    + " is below the " + DurationText.format(AttestationPolicy.DEFAULT_MARGIN_FLOOR)
                    + " floor the coordinator accepts for a fresh verdict");
        }
        return new RuleSettings(margin, mode == Mode.talos);
    }

    /** The HMAC key bytes, or null when no key file was given. */
    byte[] fingerprintKeyBytes(CommandSpec spec) {
        if (fingerprintKey == null) {
            return null;
        }
        byte[] key;
        try {
            key = Files.readAllBytes(fingerprintKey);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(),
                    "--fingerprint-key " + fingerprintKey + ": cannot read: " + IoErrors.describe(e));
        }
        if (key.length < CredentialFingerprint.MIN_KEY_BYTES) {
            throw new ParameterException(spec.commandLine(), "--fingerprint-key " + fingerprintKey + ": must hold at least "
                    + CredentialFingerprint.MIN_KEY_BYTES + " bytes, has " + key.length);
        }
        return key;
    }

    void requireDirectories(CommandSpec spec) {
        if (!Files.isDirectory(procRoot)) {
            throw new ParameterException(spec.commandLine(), "--proc-root " + procRoot + ": not a directory");
        }
        if (!Files.isDirectory(hostRoot)) {
            throw new ParameterException(spec.commandLine(), "--host-root " + hostRoot + ": not a directory");
        }
    }
}
