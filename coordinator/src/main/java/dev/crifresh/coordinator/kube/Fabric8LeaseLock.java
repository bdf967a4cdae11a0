package dev.crifresh.coordinator.kube;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;

/**
 * {@link LeaseLock} on a {@code coordination.k8s.io/v1} Lease. Every write carries the resource
 * version it was decided on, so two runs racing for the Lease cannot both win (the loser gets 409).
 * A Lease is free when it has no holder or its {@code renewTime + leaseDurationSeconds} has passed.
 */
public final class Fabric8LeaseLock implements LeaseLock {
    private final Context context;
    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private final String identity;
    private final int durationSeconds;
    private final Clock clock;

    public Fabric8LeaseLock(Context context, KubernetesClient client, String namespace, String name,
                            String identity, Duration leaseDuration, Clock clock) {
        this.context = context;
        this.client = client;
        this.namespace = namespace;
        this.name = name;
        this.identity = identity;
        this.durationSeconds = (int) Math.max(1, (leaseDuration.toMillis() + 999) / 1000);
        this.clock = clock;
    }

    private ZonedDateTime now() {
        return ZonedDateTime.now(clock).withZoneSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
    }

    @Override
    public Future<Attempt> tryAcquire() {
        return context.executeBlocking(() -> {
            var leases = client.leases().inNamespace(namespace);
            Lease current = leases.withName(name).get();
            ZonedDateTime now = now();
            if (current == null) {
                Lease lease = new LeaseBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                        .withNewSpec().withHolderIdentity(identity).withLeaseDurationSeconds(durationSeconds)
                        .withAcquireTime(now).withRenewTime(now).withLeaseTransitions(0).endSpec().build();
                try {
                    leases.resource(lease).create();
                    return new Attempt(true, identity);
                } catch (KubernetesClientException e) {
                    if (e.getCode() == 409) {
                        return new Attempt(false, "another run (created concurrently)");
                    }
                    throw e;
                }
            }
            var spec = current.getSpec();
            String holder = spec == null ? null : spec.getHolderIdentity();
            boolean ours = identity.equals(holder);
            if (!ours && holder != null && !holder.isEmpty() && !expired(current, now)) {
                return new Attempt(false, holder + (spec.getAcquireTime() == null ? ""
                        : " since " + DateTimeFormatter.ISO_INSTANT.format(spec.getAcquireTime().truncatedTo(ChronoUnit.SECONDS))));
            }
            int transitions = spec == null || spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions();
            Lease taken = new LeaseBuilder(current).editOrNewSpec()
                    .withHolderIdentity(identity).withLeaseDurationSeconds(durationSeconds)
                    .withAcquireTime(ours ? spec.getAcquireTime() : now).withRenewTime(now)
                    .withLeaseTransitions(ours ? transitions : transitions + 1).endSpec().build();
            try {
                leases.resource(taken).update();
                return new Attempt(true, identity);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    return new Attempt(false, holder == null || holder.isEmpty() ? "another run (taken concurrently)" : holder);
                }
                throw e;
            }
        }, false);
    }

    private boolean expired(Lease lease, ZonedDateTime now) {
        var spec = lease.getSpec();
        ZonedDateTime renewed = spec.getRenewTime() != null ? spec.getRenewTime() : spec.getAcquireTime();
        int seconds = spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds();
        return renewed == null || !renewed.plusSeconds(seconds).isAfter(now);
    }

    @Override
    public Future<Boolean> renew() {
        return context.executeBlocking(() -> {
            var resource = client.leases().inNamespace(namespace).withName(name);
            Lease current = resource.get();
            if (current == null || current.getSpec() == null || !identity.equals(current.getSpec().getHolderIdentity())) {
                return false;
            }
            Lease renewed = new LeaseBuilder(current).editSpec().withRenewTime(now()).endSpec().build();
            // A 409 (changed since our read) fails this attempt; the caller retries until the Lease would expire.
            client.leases().inNamespace(namespace).resource(renewed).update();
            return true;
        }, false);
    }

    @Override
    public Future<Void> release() {
        return context.executeBlocking(() -> {
            var resource = client.leases().inNamespace(namespace).withName(name);
            Lease current = resource.get();
            if (current != null && current.getSpec() != null && identity.equals(current.getSpec().getHolderIdentity())) {
                Lease released = new LeaseBuilder(current).editSpec().withHolderIdentity(null).withRenewTime(now())
                        .withLeaseDurationSeconds(1).endSpec().build();
                try {
                    client.leases().inNamespace(namespace).resource(released).update();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                        throw e;
                    }
                }
            }
            return null;
        }, false);
    }

    @Override
    public Future<String> holder() {
        return context.executeBlocking(() -> LeaseHolderWatch.holderOf(client.leases().inNamespace(namespace).withName(name).get()), false);
    }

    @Override
    public Future<Watch> watch(Consumer<String> holder) {
        return LeaseHolderWatch.start(context, client, namespace, name, holder);
    }
}
