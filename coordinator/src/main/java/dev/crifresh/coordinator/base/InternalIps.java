package dev.crifresh.coordinator.base;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import java.util.ArrayList;
import java.util.List;

/** A node's InternalIP, which drivers that address nodes by IP require to be present and unique. */
public final class InternalIps {
    private InternalIps() {
    }

    /** The node's first InternalIP, or null. */
    public static String of(Node node) {
        List<String> all = all(node);
        return all.isEmpty() ? null : all.get(0);
    }

    /** Every non-blank InternalIP of the node, trimmed, in status order. */
    public static List<String> all(Node node) {
        if (node.getStatus() == null || node.getStatus().getAddresses() == null) {
            return List.of();
        }
        List<String> ips = new ArrayList<>();
        for (NodeAddress a : node.getStatus().getAddresses()) {
            if ("InternalIP".equals(a.getType()) && a.getAddress() != null && !a.getAddress().isBlank()) {
                ips.add(a.getAddress().trim());
            }
        }
        return ips;
    }

    /** @throws IllegalStateException naming the node when it has no InternalIP */
    public static String require(Node node) {
        String ip = of(node);
        if (ip == null) {
            throw new IllegalStateException("node " + node.getMetadata().getName() + " has no InternalIP in status.addresses");
        }
        return ip;
    }

    /** @throws IllegalStateException naming the node when the IP is missing or shared with another node */
    public static String requireUnique(Node node, List<Node> selected) {
        String name = node.getMetadata().getName();
        String ip = require(node);
        for (Node other : selected) {
            String otherName = other.getMetadata().getName();
            if (!otherName.equals(name) && ip.equals(of(other))) {
                throw new IllegalStateException("node " + name + " shares its InternalIP " + ip + " with node " + otherName);
            }
        }
        return ip;
    }
}
