package dev.crifresh.coordinator.cli;

import dev.crifresh.common.attest.TrustBundle;
import dev.crifresh.coordinator.fixture.Harness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** The files a coordinator command line reads, written for a test cluster: kubeconfigs, the trust bundle, a credential. */
final class CliInputs {
    /** The registry credential every test rolls out, as a Docker config. */
    static final String DOCKER_CONFIG = dockerConfig("deploy-bot:token-v2");

    private final Path dir;
    final String server;
    final Path kubeconfig;
    final Path trust;
    final Path credential;

    CliInputs(Path dir, Harness h) throws IOException {
        this.dir = dir;
        this.server = h.cluster.client.getConfiguration().getMasterUrl().replaceAll("/$", "");
        this.kubeconfig = kubeconfig("kubeconfig", server, "ci", "mock");
        this.trust = Files.createDirectories(dir.resolve("trust"));
        Files.writeString(trust.resolve(TrustBundle.JWKS_FILE), h.agent.trust.jwksJson());
        Files.write(trust.resolve(TrustBundle.FINGERPRINT_KEY_FILE), h.agent.fingerprintKey);
        this.credential = Files.writeString(dir.resolve("config.json"), DOCKER_CONFIG);
    }

    /**
     * A kubeconfig whose current context {@code mock} names cluster {@code clusterName} and user {@code user}; its
     * one cluster {@code mock} is at {@code url}, its one user is {@code ci}, and a second context {@code other} exists.
     */
    Path kubeconfig(String name, String url, String user, String clusterName) throws IOException {
        return Files.writeString(dir.resolve(name), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster:
                    server: %s
                users:
                - name: ci
                  user:
                    token: not-a-real-token
                contexts:
                - name: mock
                  context:
                    cluster: %s
                    user: %s
                - name: other
                  context:
                    cluster: mock
                    user: ci
                current-context: mock
                """.formatted(url, clusterName, user));
    }

    Path credential(String name, String userColonPassword) throws IOException {
        return Files.writeString(dir.resolve(name), dockerConfig(userColonPassword));
    }

    /** {@code command} with these inputs, no step summary, then {@code more}. */
    String[] args(String command, Path config, String... more) {
        List<String> a = new ArrayList<>(List.of(command, "--kubeconfig", config.toString(),
                "--trust-bundle", trust.toString(), "--credential-file", credential.toString(), "--step-summary", ""));
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    private static String dockerConfig(String userColonPassword) {
        return "{\"auths\":{\"ghcr.io\":{\"auth\":\""
                + Base64.getEncoder().encodeToString(userColonPassword.getBytes(StandardCharsets.UTF_8)) + "\"}}}";
    }
}
