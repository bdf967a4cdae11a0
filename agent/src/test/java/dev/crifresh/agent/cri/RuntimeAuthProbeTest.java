package dev.crifresh.agent.cri;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.crifresh.agent.host.ConfigDocument;
import dev.crifresh.agent.host.RegistryFingerprints;
import dev.crifresh.common.evidence.RuntimeAuth;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The comparison behind the runtime-status proof, with the CRI answer given (containerd 2.x cannot run here;
 * containerd 1.6's real answers are the reality suite's). The files are containerd 1.x's version-2 TOML.
 */
class RuntimeAuthProbeTest {
    private static final List<ConfigDocument> FILES = List.of(new ConfigDocument("/etc/cri/conf.d/cri.toml", """
            version = 2
            [plugins."io.containerd.grpc.v1.cri".registry.configs."ghcr.io".auth]
              username = "bot"
              password = "token-v2"
            """));

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final RegistryFingerprints.Result READING = RegistryFingerprints.of(FILES, KEY, true, null);

    private static RuntimeAuth compare(Map<String, String> info) {
        try (RuntimeAuthProbe probe = new RuntimeAuthProbe(new Fixed(info, null))) {
            return probe.compare(READING, KEY);
        }
    }

    private static String held(String password) {
        return "{\"registry\":{\"configs\":{\"ghcr.io\":{\"auth\":{\"username\":\"bot\",\"password\":\"" + password
                + "\",\"auth\":\"\",\"identitytoken\":\"\"}}}}}";
    }

    @Test
    void theSameCredentialIsSame() {
        assertEquals(RuntimeAuth.State.SAME, compare(Map.of("config", held("token-v2"))).state());
    }

    @Test
    void anotherCredentialIsDifferentAndNamedByHostOnly() {
        RuntimeAuth r = compare(Map.of("config", held("token-v1")));
        assertEquals(RuntimeAuth.State.DIFFERENT, r.state());
        assertEquals("CRI status: registry ghcr.io", r.detail());
        assertFalse(r.detail().contains("token"));
    }

    @Test
    void noCredentialHeldIsDifferent() {
        assertEquals(RuntimeAuth.State.DIFFERENT,
                compare(Map.of("config", "{\"registry\":{\"configs\":null}}")).state());
    }

    @Test
    void containerd2ReportsNoRegistrySoTodaysRulesDecide() {
        assertEquals(RuntimeAuth.State.UNAVAILABLE, compare(Map.of("config", "{\"containerd\":{}}")).state());
        assertEquals(RuntimeAuth.State.UNAVAILABLE, compare(Map.of()).state());
    }

    @Test
    void filesThatDoNotParseAreUnavailable() {
        RegistryFingerprints.Result broken = RegistryFingerprints.of(
                List.of(new ConfigDocument("/etc/cri/conf.d/cri.toml", "version = [")), KEY, true, null);
        try (RuntimeAuthProbe probe = new RuntimeAuthProbe(new Fixed(Map.of("config", held("token-v2")), null))) {
            RuntimeAuth r = probe.compare(broken, KEY);
            assertEquals(RuntimeAuth.State.UNAVAILABLE, r.state());
            assertEquals("the config files do not parse", r.detail());
        }
    }

    @Test
    void anUnansweredStatusIsUnavailable() {
        try (RuntimeAuthProbe probe = new RuntimeAuthProbe(new Fixed(null, "CRI Status on /x failed: refused"))) {
            RuntimeAuth r = probe.compare(READING, KEY);
            assertEquals(RuntimeAuth.State.UNAVAILABLE, r.state());
            assertEquals("CRI Status on /x failed: refused", r.detail());
        }
    }

    private record Fixed(Map<String, String> info, String failure) implements CriStatusSource {
        @Override
        public Map<String, String> statusInfo() throws CriStatusException {
            if (failure != null) {
                throw new CriStatusException(failure);
            }
            return info;
        }

        @Override
        public void close() {
        }
    }
}
