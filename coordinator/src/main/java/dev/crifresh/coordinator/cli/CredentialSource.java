package dev.crifresh.coordinator.cli;

import dev.crifresh.common.registry.DockerConfig;
import dev.crifresh.common.registry.RegistryAuth;
import dev.crifresh.common.registry.RegistryHosts;
import dev.crifresh.common.registry.RegistryParse;
import dev.crifresh.common.text.IoErrors;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The desired credential: {@code --credential-secret NS/NAME} (a {@code kubernetes.io/dockerconfigjson}
 * Secret) or {@code --credential-file FILE} (a docker {@code config.json}): exactly one. Only its
 * fingerprint is ever used or shown.
 */
public final class CredentialSource {
    static final String DOCKER_CONFIG_KEY = ".dockerconfigjson";

    @Option(names = "--credential-secret", paramLabel = "NS/NAME", required = true,
            description = "A kubernetes.io/dockerconfigjson Secret holding the desired registry credential.")
    String secret;

    @Option(names = "--credential-file", paramLabel = "FILE", required = true,
            description = "A docker config.json holding the desired registry credential.")
    Path file;

    public RegistryAuth load(KubernetesClient client, String registry) {
        String where;
        String json;
        if (file != null) {
            where = "--credential-file " + file;
            try {
                json = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UsageException(where + ": cannot read: " + IoErrors.describe(e), e);
            }
        } else {
            SecretRef ref = SecretRef.parse("--credential-secret", secret);
            where = "--credential-secret " + ref;
            Secret s = ref.read(client);
            if (s.getType() != null && !"kubernetes.io/dockerconfigjson".equals(s.getType())) {
                throw new UsageException(where + ": the Secret has type " + s.getType() + ", expected kubernetes.io/dockerconfigjson");
            }
            json = new String(ref.data(s, DOCKER_CONFIG_KEY), StandardCharsets.UTF_8);
        }
        RegistryParse parsed = DockerConfig.parse(json);
        if (parsed instanceof RegistryParse.Failed failed) {
            throw new UsageException(where + ": " + failed.message());
        }
        String host = RegistryHosts.normalise(registry);
        for (RegistryAuth auth : ((RegistryParse.Parsed) parsed).credentials()) {
            if (host.equals(RegistryHosts.normalise(auth.host()))) {
                return usable(where, host, auth);
            }
        }
        throw new UsageException(where + ": no credential for registry " + host);
    }

    /**
     * A credential no registry would accept (a username without a password, an empty auth) would turn every node
     * config-pending and make a rollout wait out {@code --config-timeout}: rejected at once instead.
     */
    static RegistryAuth usable(String where, String host, RegistryAuth auth) {
        if (!auth.identityToken().isEmpty()) {
            return auth;
        }
        boolean user = !auth.username().isEmpty();
        boolean password = !auth.password().isEmpty();
        if (user && password) {
            return auth;
        }
        String what = user ? "a username but no password" : password ? "a password but no username"
                : "no username and no password (an empty auth)";
        throw new UsageException(where + ": the credential for " + host + " has " + what);
    }
}
