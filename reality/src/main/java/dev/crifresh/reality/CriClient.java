package dev.crifresh.reality;

import dev.crifresh.reality.cri.v1.ImageServiceGrpc;
import dev.crifresh.reality.cri.v1.ImageSpec;
import dev.crifresh.reality.cri.v1.PullImageRequest;
import dev.crifresh.reality.cri.v1.RemoveImageRequest;
import dev.crifresh.reality.cri.v1.RuntimeServiceGrpc;
import dev.crifresh.reality.cri.v1.VersionRequest;
import dev.crifresh.reality.cri.v1.VersionResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A CRI client on grpc-java over containerd's unix socket, as kubelet calls it: {@code PullImage} with no
 * credential in the request (containerd must use the one it loaded from its config), {@code RemoveImage},
 * {@code Version} and {@code Status(verbose)}.
 */
public final class CriClient implements AutoCloseable {
    private final ManagedChannel channel;

    public CriClient(Path socket) {
        this.channel = Grpc.newChannelBuilder("unix://" + socket.toAbsolutePath(), InsecureChannelCredentials.create())
                .build();
    }

    /** The outcome of one pull: the image reference on success, else the gRPC status and message. */
    public record Pull(boolean ok, String detail) {
        /** The registry refused the credential containerd sent (or that it sent none). */
        public boolean unauthorized() {
            return !ok && detail.contains("401 Unauthorized");
        }

        /** containerd had no credential for the registry to send (containerd 2.x says so before asking). */
        public boolean noCredential() {
            return !ok && detail.contains("no basic auth credentials");
        }

        public String summary() {
            return ok ? "OK" : unauthorized() ? "401" : noCredential() ? "no credential" : "error";
        }
    }

    /**
     * Removes {@code image} from containerd's store, then pulls it with no auth in the request: every call
     * goes to the registry with the credential containerd holds.
     */
    public Pull pull(String image) {
        ImageSpec spec = ImageSpec.newBuilder().setImage(image).build();
        try {
            images().removeImage(RemoveImageRequest.newBuilder().setImage(spec).build());
        } catch (StatusRuntimeException e) {
            // Not there: nothing to remove.
        }
        try {
            String ref = images().pullImage(PullImageRequest.newBuilder().setImage(spec).build()).getImageRef();
            return new Pull(true, ref);
        } catch (StatusRuntimeException e) {
            return new Pull(false, e.getStatus().getCode() + ": " + e.getStatus().getDescription());
        }
    }

    public VersionResponse version() {
        return runtime().version(VersionRequest.newBuilder().setVersion("v1").build());
    }

    boolean ready() {
        try {
            return version().getRuntimeName().equals("containerd");
        } catch (StatusRuntimeException e) {
            return false;
        }
    }

    private ImageServiceGrpc.ImageServiceBlockingStub images() {
        return ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    private RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime() {
        return RuntimeServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }
}
