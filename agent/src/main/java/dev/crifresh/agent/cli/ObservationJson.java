package dev.crifresh.agent.cli;

import dev.crifresh.agent.loop.Assessment;
import dev.crifresh.common.evidence.ClockWitness;
import dev.crifresh.common.evidence.ContainerdListener;
import dev.crifresh.common.evidence.ContainerdSocket;
import dev.crifresh.common.evidence.Evaluation;
import dev.crifresh.common.evidence.Introspection;
import dev.crifresh.common.evidence.IntrospectionAnswer;
import dev.crifresh.common.evidence.Observation;
import dev.crifresh.common.evidence.ProcessSample;
import dev.crifresh.common.evidence.WatchedDirectory;
import dev.crifresh.common.evidence.WatchedFile;
import java.time.Instant;
import java.util.Locale;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The {@code observe} output: verdict, evidence and fingerprints, never file contents. */
final class ObservationJson {
    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private ObservationJson() {
    }

    /** containerd's socket, the clock witness, and what it says about the clock since containerd started. */
    private static void putSocket(ObjectNode containerd, Observation o, Evaluation e) {
        ContainerdSocket socket = o.containerdSocket();
        if (socket == null) {
            return;
        }
        ObjectNode sn = containerd.putObject("socket");
        sn.put("path", socket.path());
        if (socket.usable()) {
            putInstant(sn, "mtime", socket.mtime());
            putInstant(sn, "ctime", socket.ctime());
        } else {
            sn.put("error", socket.problem());
        }
        if (e.containerdStartedAt() != null && o.clock() != null) {
            ClockWitness.Reading reading = ClockWitness.read(socket, e.containerdStartedAt(), o.clock().error());
            sn.put("clock", reading instanceof ClockWitness.Agrees ? "agrees"
                    : reading instanceof ClockWitness.SteppedForward ? "stepped-forward"
                    : reading instanceof ClockWitness.SteppedBack ? "stepped-back" : "no-witness");
            sn.put("clockDetail", reading.describe());
        }
    }

    /** Whether containerd listens at its address (rule 1, serving), when read. */
    private static void putListener(ObjectNode containerd, ContainerdListener listener) {
        if (listener == null) {
            return;
        }
        ObjectNode ln = containerd.putObject("listener");
        ln.put("address", listener.address());
        ln.put("state", listener.state().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        if (listener.detail() != null) {
            ln.put("detail", listener.detail());
        }
    }

    /** containerd's introspection answer (rule 1b), when the check is on. */
    private static void putIntrospection(ObjectNode containerd, Introspection check) {
        if (check == null) {
            return;
        }
        ObjectNode in = containerd.putObject("introspection");
        in.put("socket", check.socket());
        if (check.answer() instanceof IntrospectionAnswer.Answered said) {
            in.put("uuid", said.uuid());
            in.put("pid", said.pid());
            in.put("pidns", said.pidns());
            ArrayNode deprecations = in.putArray("deprecations");
            for (IntrospectionAnswer.Deprecation d : said.deprecations()) {
                ObjectNode dn = deprecations.addObject();
                dn.put("id", d.id());
                putInstant(dn, "lastOccurrence", d.lastOccurrence());
            }
        } else if (check.answer() instanceof IntrospectionAnswer.Unanswered none) {
            in.put("error", none.problem());
        } else {
            throw new IllegalStateException("unhandled introspection answer " + check.answer().getClass().getName());
        }
        ArrayNode hosts = in.putArray("configCredentialHosts");
        check.credentialHosts().forEach(hosts::add);
    }

    static String render(Assessment a, boolean withRegistries) {
        Observation o = a.observation();
        Evaluation e = a.evaluation();
        ObjectNode root = JSON.createObjectNode();
        root.put("verdict", e.verdict().wire());
        root.put("reason", e.reason().code());
        root.put("proof", e.proof().wire());
        root.put("message", e.message());
        if (a.fallback() != null) {
            ObjectNode fallback = root.putObject("proofFallback");
            fallback.put("requested", a.fallback().requested());
            fallback.put("used", a.fallback().used());
            fallback.put("why", a.fallback().why());
        }
        root.put("bootId", o.bootId());
        if (o.clock() != null) {
            root.put("bootTime", o.clock().bootWallTime().toString());
            root.put("bootTimeErrorMs", o.clock().error().toMillis());
        } else {
            root.putNull("bootTime");
        }
        if (o.hostError() != null) {
            root.put("hostError", o.hostError());
        }
        root.put("observedAt", o.observedAt().toString());
        root.put("candidates", o.candidates().size());
        ProcessSample c = e.containerd();
        if (c == null) {
            root.putNull("containerd");
        } else {
            ObjectNode cn = root.putObject("containerd");
            cn.put("pid", c.pid());
            cn.put("startTicks", c.startTicks());
            cn.put("clkTck", o.clkTck());
            putInstant(cn, "startedAt", e.containerdStartedAt());
            ArrayNode argv = cn.putArray("cmdline");
            c.cmdline().forEach(argv::add);
            putSocket(cn, o, e);
            putIntrospection(cn, o.introspection());
            putListener(cn, o.listener());
        }
        putConfig(root.putObject("config"), o, e);
        if (withRegistries) {
            ObjectNode registries = root.putObject("registries");
            a.registries().forEach(registries::put);
        }
        return JSON.writeValueAsString(root);
    }

    private static void putConfig(ObjectNode config, Observation o, Evaluation e) {
        config.put("digest", e.configDigest());
        ArrayNode files = config.putArray("files");
        for (WatchedFile f : o.files()) {
            ObjectNode fn = files.addObject();
            fn.put("path", f.path());
            if (f.isReadable()) {
                putInstant(fn, "mtime", f.mtime());
                putInstant(fn, "changedAt", f.changedAt());
                fn.put("changedBy", f.changedBy());
                fn.put("size", f.size());
                fn.put("sha256", f.sha256());
            } else {
                fn.put("error", f.readError());
            }
        }
        ArrayNode directories = config.putArray("directories");
        for (WatchedDirectory d : o.directories()) {
            ObjectNode dn = directories.addObject();
            dn.put("path", d.path());
            if (d.isReadable()) {
                putInstant(dn, "changedAt", d.changedAt());
                dn.put("changedBy", d.changedBy());
            } else {
                dn.put("error", d.readError());
            }
        }
        ArrayNode unwatched = config.putArray("unwatchedImports");
        o.unwatchedImports().forEach(unwatched::add);
    }

    private static void putInstant(ObjectNode node, String field, Instant value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value.toString());
        }
    }
}
