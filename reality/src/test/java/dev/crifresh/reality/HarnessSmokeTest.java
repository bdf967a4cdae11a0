package dev.crifresh.reality;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.sim.scenario.Credential;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HarnessSmokeTest {
    @TempDir
    Path tmp;

    @Test
    void smoke() {
        RealityGate.require();
        Credential v1 = new Credential("deploy-bot", "token-v1");
        try (RealRegistry registry = RealRegistry.start(tmp.resolve("registry"), v1)) {
            String image = registry.push(OciLayout.write(tmp.resolve("oci"), "v1", "hello"), "crifresh/probe", "v1");
            CriNode node = new CriNode(tmp.resolve("node"));
            node.render(registry.host(), v1);
            try (RealContainerd containerd = RealContainerd.start(node)) {
                CriClient.Pull pull = containerd.cri().pull(image);
                System.out.println("pull: " + pull);
                System.out.println("status keys: " + containerd.cri().statusInfo().keySet());
                assertTrue(pull.ok(), pull.detail() + "\n" + containerd.logTail());
                registry.rotate(new Credential("deploy-bot", "token-v2"));
                CriClient.Pull after = containerd.cri().pull(image);
                System.out.println("after rotation: " + after);
                assertTrue(after.unauthorized(), after.detail());
            }
        }
    }
}
