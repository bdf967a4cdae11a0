package dev.crifresh.coordinator.cli;

import dev.crifresh.coordinator.kube.UnhandledErrors;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "keys", mixinStandardHelpOptions = true, description = "Manage the attestation keys.",
        subcommands = KeysCommand.Init.class)
public final class KeysCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    @Command(name = "init", mixinStandardHelpOptions = true,
            description = {"Create an Ed25519 signing key (Secret crifresh-signing-key, key signing.key) and the trust bundle",
                "(Secret crifresh-trust-bundle, keys jwks.json and fingerprint.key) where they do not exist yet; with --out-dir, files instead.",
                "Never prints key material."})
    public static final class Init implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ClusterOptions cluster;

        @Option(names = "--namespace", paramLabel = "NS", defaultValue = "crifresh", description = "Namespace of the Secrets (default: ${DEFAULT-VALUE}).")
        String namespace;

        @Option(names = "--signing-secret", paramLabel = "NAME", defaultValue = "crifresh-signing-key",
                description = "Name of the agent's signing-key Secret (default: ${DEFAULT-VALUE}).")
        String signingSecret;

        @Option(names = "--trust-secret-name", paramLabel = "NAME", defaultValue = "crifresh-trust-bundle",
                description = "Name of the trust-bundle Secret (default: ${DEFAULT-VALUE}).")
        String trustSecret;

        @Option(names = "--rotate", description = "Add a new signing key to the trust bundle (keeping the old ones) and replace the signing key.")
        boolean rotate;

        @Option(names = "--out-dir", paramLabel = "DIR", description = "Write signing.key, jwks.json and fingerprint.key to DIR instead of Secrets.")
        Path outDir;

        @Override
        public Integer call() throws Exception {
            var out = spec.commandLine().getOut();
            if (outDir != null) {
                try {
                    new KeysInit(new FileKeyStore(outDir), out).run(rotate);
                } catch (IOException e) {
                    throw new UsageException("--out-dir " + outDir + ": " + FileKeyStore.describe(outDir, e), e);
                }
                out.flush();
                return 0;
            }
            ClusterTarget target = cluster.target();
            var err = spec.commandLine().getErr();
            err.println("crifresh-coordinator: cluster " + target.describe());
            err.flush();
            Vertx vertx = UnhandledErrors.on(Vertx.vertx());
            try (KubernetesClient client = cluster.connect(vertx, target)) {
                ApiPreflight.check(vertx, client, target, cluster.connectTimeout(), List.of(new ApiPreflight.Probe("get", "secrets", namespace,
                        c -> c.secrets().inNamespace(namespace).withName(signingSecret).get())), text -> {
                            err.println("crifresh-coordinator: " + text);
                            err.flush();
                        });
                new KeysInit(new SecretKeyStore(client, namespace, signingSecret, trustSecret), out).run(rotate);
                out.flush();
                return 0;
            } finally {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        }
    }
}
