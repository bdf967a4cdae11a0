package dev.crifresh.common.evidence;

/** The reason codes published in the Node condition (docs/design.md, "The attestation and its verifier"). */
public enum Reason {
    CONTAINERD_STARTED_AFTER_CONFIG("ContainerdStartedAfterConfig", Verdict.FRESH),
    CONFIG_UNCHANGED_SINCE_LOAD("ConfigUnchangedSinceLoad", Verdict.FRESH),
    /** CRI Status reports the registry credentials the files name (opt-in runtime-status proof). */
    RUNTIME_STATUS_MATCHES_CONFIG("RuntimeStatusMatchesConfig", Verdict.FRESH),
    /** CRI Status reports other registry credentials than the files name. */
    RUNTIME_CREDENTIAL_DIFFERS("RuntimeCredentialDiffers", Verdict.STALE),
    /**
     * containerd's introspection reports no {@code cri-registry-configs} deprecation: it loaded no registry
     * credential, while the files give one (rule 1b).
     */
    RUNTIME_LOADED_NO_REGISTRY_CONFIG("RuntimeLoadedNoRegistryConfig", Verdict.STALE),
    /** The newest change to the evidence is later than containerd's {@code cri-registry-configs} last occurrence (rule 1b). */
    CONFIG_CHANGED_AFTER_RUNTIME_LOAD("ConfigChangedAfterRuntimeLoad", Verdict.STALE),
    CONFIG_CHANGED_AFTER_CONTAINERD_START("ConfigChangedAfterContainerdStart", Verdict.STALE),
    ORDERING_WITHIN_MARGIN("OrderingWithinMargin", Verdict.STALE),
    CLOCK_ANOMALY("ClockAnomaly", Verdict.STALE),
    /**
     * The files spell a registry credential under a key no pull looks up ({@code 'http://host'}, a path,
     * {@code docker.io}): containerd holds it and never sends it. A reboot does not fix this; the config must.
     */
    REGISTRY_KEY_NEVER_MATCHED("RegistryKeyNeverMatched", Verdict.STALE),
    /**
     * A deprecated {@code registry.auths} entry replaces a {@code registry.configs} credential when containerd
     * loads it: pulls send the {@code auths} one. A reboot does not fix this; the config must.
     */
    REGISTRY_AUTHS_OVERRIDE_CONFIGS("RegistryAuthsOverrideConfigs", Verdict.STALE),
    /**
     * {@code hosts.toml} (read at every pull) sends a host's pulls to other hosts, which get another credential
     * than the one the files spell for it, or none. A reboot does not fix this; the config must.
     */
    HOSTS_TOML_REDIRECTS_PULLS("HostsTomlRedirectsPulls", Verdict.STALE),
    /**
     * containerd refuses the files it loads, or its CRI images plugin fails to start on them: no pull sends any
     * credential, and a reboot loads the same files. A reboot does not fix this; the config must.
     */
    CONTAINERD_REFUSES_CONFIG("ContainerdRefusesConfig", Verdict.STALE),
    /**
     * A {@code hosts.toml} names a {@code ca} or {@code client} certificate file that does not exist, so every pull
     * through that host fails when it sets up TLS. A reboot does not fix this; the files must.
     */
    HOSTS_TOML_CERTIFICATE_MISSING("HostsTomlCertificateMissing", Verdict.STALE),
    CONTAINERD_NOT_FOUND("ContainerdNotFound", Verdict.UNKNOWN),
    CONTAINERD_AMBIGUOUS("ContainerdAmbiguous", Verdict.UNKNOWN),
    CONFIG_UNREADABLE("ConfigUnreadable", Verdict.UNKNOWN),
    /** containerd loads a file (its config or an import of it) that the agent does not watch. */
    CONFIG_UNWATCHED_IMPORT("ConfigUnwatchedImport", Verdict.UNKNOWN),
    /** containerd's start (boot-relative) is later than the uptime when it was read: the numbers are wrong. */
    CONTAINERD_START_IN_FUTURE("ContainerdStartInFuture", Verdict.UNKNOWN),
    /**
     * A mount point on the way to the config (a file, its directory or a directory above it) that the
     * platform does not create: a tree mounted there moves no stamp the agent reads.
     */
    CONFIG_PATH_MOUNTED("ConfigPathMounted", Verdict.UNKNOWN),
    /** Not in the list of docs/design.md, "The attestation and its verifier": the boot id or the clock source could not be read. */
    HOST_UNREADABLE("HostUnreadable", Verdict.UNKNOWN),
    /**
     * containerd's socket shows that the wall clock ran ahead at containerd's start and was stepped back
     * since: stamps from before the step cannot be ordered (DESIGN, "The clock witness").
     */
    CLOCK_STEPPED("ClockStepped", Verdict.UNKNOWN),
    /** The introspection check is on and containerd's socket gave no usable answer (rule 1b). */
    INTROSPECTION_UNAVAILABLE("IntrospectionUnavailable", Verdict.UNKNOWN),
    /** containerd's socket is answered by another process than the containerd the agent timed (rule 1b). */
    INTROSPECTION_OTHER_PROCESS("IntrospectionOtherProcess", Verdict.UNKNOWN),
    /**
     * The containerd the agent timed has no listening socket at its address: it has not finished loading its
     * config, or refused it and is about to exit (rule 1, serving).
     */
    CONTAINERD_NOT_SERVING("ContainerdNotServing", Verdict.UNKNOWN),
    /**
     * containerd's introspection records a deprecation that the agent's reading of the files does not explain (it
     * loaded a {@code registry.auths} entry the reading does not find): containerd reads the files differently
     * (rule 1b).
     */
    RUNTIME_DEPRECATION_UNEXPLAINED("RuntimeDeprecationUnexplained", Verdict.UNKNOWN),
    /**
     * The kubelet reports on the agent's own Node that the container runtime is down or not ready (its Ready
     * condition): containerd may serve without its CRI service (a CRI plugin that did not start), and then every
     * pull fails whatever the files say.
     */
    CONTAINER_RUNTIME_NOT_READY("ContainerRuntimeNotReady", Verdict.UNKNOWN);

    private final String code;
    private final Verdict verdict;

    Reason(String code, Verdict verdict) {
        this.code = code;
        this.verdict = verdict;
    }

    /** The CamelCase code written to the condition's reason field. */
    public String code() {
        return code;
    }

    /** The verdict this reason always goes with. */
    public Verdict verdict() {
        return verdict;
    }
}
