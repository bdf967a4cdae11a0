package dev.crifresh.images;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ctr run} of the agent's container, translated field by field from the rendered chart
 * ({@link ChartAgent}) and the image's config, as the kubelet and containerd's CRI plugin would apply them:
 * command = the image's ENTRYPOINT + the pod's args with {@code $(VAR)} expanded; environment = the
 * image's, then the pod's; uid/gid, capabilities, no_new_privs, seccomp, read-only root, the host's PID
 * namespace, memory and CPU limits, and every volume mount with its read-only flag.
 *
 * <p>Two deliberate differences from a kubelet, both outside the agent's security context: the
 * container shares the test's network namespace (a pod's network comes from a CNI plugin; here the
 * test must reach the metrics port on loopback), and the test adds {@code KUBECONFIG} and mounts a
 * kubeconfig where the kubelet would mount the service account token (the mock API speaks plain HTTP).
 *
 * @param volumeSources the host directory standing in for each non-hostPath volume, by volume name
 */
record ChartRun(ChartAgent agent, List<String> entrypoint, List<String> imageEnv, Map<String, String> fieldValues,
                Map<String, Path> volumeSources, Map<String, String> testEnv, List<Mount> testMounts) {

    record Mount(Path source, String destination) {
    }

    /** Every capability of Linux 6.x: "drop ALL" as ctr expresses it (ctr accepts only names). */
    static final List<String> ALL_CAPABILITIES = List.of("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH",
            "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
            "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
            "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN",
            "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
            "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN",
            "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
            "CAP_CHECKPOINT_RESTORE");

    /** The container's environment: the image's, then the pod's (values and downward-API fields), then the test's. */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String e : imageEnv) {
            int eq = e.indexOf('=');
            env.put(e.substring(0, eq), e.substring(eq + 1));
        }
        env.putAll(agent.env());
        agent.fieldRefEnv().forEach((name, field) -> {
            String value = fieldValues.get(field);
            if (value == null) {
                throw new AssertionError("the test gives no value for the downward API field " + field);
            }
            env.put(name, value);
        });
        env.putAll(testEnv);
        return env;
    }

    /** The process's argv: ENTRYPOINT, then the pod's args (the pod sets no command, so the image's stays). */
    List<String> argv(List<String> args) {
        List<String> argv = new ArrayList<>(entrypoint);
        argv.addAll(args);
        return argv;
    }

    /** {@code ctr run} flags for this container, rootfs and id last; {@code args} replaces the pod's args when given. */
    @SuppressWarnings("checkstyle:methodlength") // every pod-spec setting mapped to its ctr run flag, in one list
    List<Object> ctrArgs(Path rootfs, String id, List<String> args, boolean detach, Path log, String hostPidNamespace) {
        if (agent.runAsUser() != 0 || agent.runAsGroup() != 0) {
            // ctr run --rootfs starts uid 0 gid 0 and has no --user: a chart running another uid needs another runner
            throw new AssertionError("the chart runs the agent as " + agent.runAsUser() + ":" + agent.runAsGroup()
                    + "; this test runs uid 0 gid 0 only");
        }
        List<Object> out = new ArrayList<>(List.of("run"));
        out.add(detach ? "--detach" : "--rm");
        if (detach) {
            out.add("--log-uri");
            out.add("file://" + log);
        }
        out.add("--rootfs");
        if (agent.readOnlyRootFilesystem()) {
            out.add("--read-only");
        }
        if (agent.hostPid()) {
            out.add("--with-ns");
            out.add("pid:" + hostPidNamespace);
        }
        if (agent.allowPrivilegeEscalation()) {
            out.add("--allow-new-privs");
        }
        if (agent.seccomp().equals("RuntimeDefault")) {
            out.add("--seccomp");
        } else if (!agent.seccomp().equals("Unconfined")) {
            throw new AssertionError("seccomp profile " + agent.seccomp() + " is not translated");
        }
        for (String drop : agent.capabilitiesDrop()) {
            for (String cap : drop.equals("ALL") ? ALL_CAPABILITIES : List.of("CAP_" + drop)) {
                out.add("--cap-drop");
                out.add(cap);
            }
        }
        if (agent.memoryLimitBytes() > 0) {
            out.add("--memory-limit");
            out.add(agent.memoryLimitBytes());
        }
        if (agent.cpuLimit() > 0) {
            // the CFS quota per 100 ms period, as the kubelet sets it
            out.add("--cpu-period");
            out.add(100_000);
            out.add("--cpu-quota");
            out.add(Math.round(agent.cpuLimit() * 100_000));
        }
        out.add("--net-host");
        environment().forEach((k, v) -> {
            out.add("--env");
            out.add(k + "=" + v);
        });
        for (ChartAgent.Mount m : agent.mounts()) {
            Path source = m.hostPath() != null ? Path.of(m.hostPath()) : volumeSources.get(m.name());
            if (source == null) {
                throw new AssertionError("the test provides no directory for the volume " + m.name());
            }
            out.add("--mount");
            out.add("type=bind,src=" + source + ",dst=" + m.mountPath() + ",options=rbind:" + (m.readOnly() ? "ro" : "rw"));
        }
        for (Mount m : testMounts) {
            out.add("--mount");
            out.add("type=bind,src=" + m.source() + ",dst=" + m.destination() + ",options=rbind:ro");
        }
        out.add(rootfs);
        out.add(id);
        out.addAll(argv(args));
        return out;
    }
}
