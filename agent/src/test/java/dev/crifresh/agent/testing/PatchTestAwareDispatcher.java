package dev.crifresh.agent.testing;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatchException;

/**
 * The CRUD dispatcher with one mock gap closed: when a JSON Patch {@code test} operation fails, the
 * mock throws inside its handler and never answers (the client times out), whereas a real API server
 * answers 422 Unprocessable Entity. This answers 422 with a Status, as kube-apiserver does.
 */
public final class PatchTestAwareDispatcher extends KubernetesCrudDispatcher {
    @Override
    public MockResponse handlePatch(RecordedRequest request) {
        try {
            return super.handlePatch(request);
        } catch (JsonPatchException e) {
            String message = e.getMessage() == null ? "json patch failed" : e.getMessage().replace("\"", "'");
            return new MockResponse().setResponseCode(422).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"status\":\"Failure\",\"reason\":\"Invalid\",\"code\":422,\"message\":\"" + message + "\"}");
        }
    }
}
