package dev.crifresh.agent.kube;

import java.util.List;
import java.util.Optional;

/**
 * The calls of the expiry leader (docs/design.md, "A condition never outlives its proof"): list every
 * Node, patch another Node's status, and hold one Lease. Blocking: call on a worker thread.
 */
public interface ExpiryApi {
    /** Every Node (the watch cache's view, {@code resourceVersion=0}: the patches are guarded). */
    List<io.fabric8.kubernetes.api.model.Node> listNodes() throws ApiException;

    /** Applies an RFC 6902 JSON Patch to {@code nodes/<name>/status}. */
    void patchStatus(String name, String jsonPatch) throws ApiException;

    /** The Lease, or empty when it does not exist. */
    Optional<LeaseRecord> lease(String namespace, String name) throws ApiException;

    /** Creates the Lease; a 409 when another candidate created it first. */
    void createLease(String namespace, String name, LeaseRecord lease) throws ApiException;

    /** Replaces the Lease's spec if its resourceVersion is still {@code current.resourceVersion()}; else a 409 or 422. */
    void updateLease(String namespace, String name, LeaseRecord current, LeaseRecord next) throws ApiException;
}
