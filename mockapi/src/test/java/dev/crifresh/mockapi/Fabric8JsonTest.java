package dev.crifresh.mockapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

/** The mock's mapper writes what fabric8's own serialisation writes: its modules and inclusion rules are on. */
class Fabric8JsonTest {
    @Test
    void writesAPodAsFabric8sSerialisationDoes() {
        Pod pod = new PodBuilder().withNewMetadata().withName("a").withNamespace("shop")
                .addToAnnotations("k", "v").endMetadata()
                .withNewSpec().withNodeName("n1").endSpec().build();

        String written = Fabric8Json.MAPPER.writeValueAsString(pod);

        assertEquals(new KubernetesSerialization().asJson(pod), written);
        assertFalse(written.contains("null"), written);
        assertEquals(pod, new KubernetesSerialization().unmarshal(written, Pod.class));
    }
}
