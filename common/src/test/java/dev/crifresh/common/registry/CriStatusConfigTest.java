package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** containerd 1.6's Status(verbose) config JSON, in the shape the real one returns (reality suite). */
class CriStatusConfigTest {
    private static String status(String registry) {
        return "{\"containerd\":{\"snapshotter\":\"native\"}," + registry + ",\"disableTCPService\":true}";
    }

    @Test
    void readsTheLoadedAuthAsTheTomlEntryIsRead() {
        String json = status("\"registry\":{\"configPath\":\"/etc/cri/conf.d/hosts\",\"mirrors\":null,\"configs\":{"
                + "\"127.0.0.1:5000\":{\"auth\":{\"username\":\"deploy-bot\",\"password\":\"token-v1\",\"auth\":\"\","
                + "\"identitytoken\":\"\"},\"tls\":null},"
                + "\"ghcr.io\":{\"auth\":{\"username\":\"\",\"password\":\"\",\"auth\":\""
                + Base64.getEncoder().encodeToString("bot:pa:ss".getBytes(StandardCharsets.UTF_8))
                + "\",\"identitytoken\":\"\"},\"tls\":null},"
                + "\"tls-only.example\":{\"auth\":null,\"tls\":{\"insecure_skip_verify\":true}}},"
                + "\"auths\":null,\"headers\":null}");
        CriStatusConfig.Reported r = assertInstanceOf(CriStatusConfig.Reported.class, CriStatusConfig.parse(json));
        assertEquals(List.of(new RegistryAuth("127.0.0.1:5000", "deploy-bot", "token-v1", ""),
                new RegistryAuth("ghcr.io", "bot", "pa:ss", "")), r.credentials());
    }

    @Test
    void noConfigsIsAnEmptySet() {
        assertEquals(new CriStatusConfig.Reported(List.of()),
                CriStatusConfig.parse(status("\"registry\":{\"configPath\":\"\",\"configs\":null}")));
    }

    @Test
    void noRegistrySectionSaysNothing() {
        // containerd 2.x: the runtime plugin's config, without the images plugin's registry.
        assertInstanceOf(CriStatusConfig.NotReported.class, CriStatusConfig.parse("{\"containerd\":{}}"));
    }

    @Test
    void badInputFailsWithoutQuotingValues() {
        assertInstanceOf(CriStatusConfig.Failed.class, CriStatusConfig.parse("not json"));
        assertInstanceOf(CriStatusConfig.Failed.class, CriStatusConfig.parse("[]"));
        CriStatusConfig.Result r = CriStatusConfig.parse(status("\"registry\":{\"configs\":{\"h\":{\"auth\":"
                + "{\"username\":7,\"password\":\"s3cret\"}}}}"));
        CriStatusConfig.Failed f = assertInstanceOf(CriStatusConfig.Failed.class, r);
        assertFalse(f.message().contains("s3cret"), f.message());
    }
}
