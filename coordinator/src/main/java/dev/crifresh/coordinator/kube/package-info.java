/**
 * The coordinator's Kubernetes seams (node, pod, event and Lease operations on fabric8) and the annotations and
 * patches it writes.
 */
@MayUse({})
package dev.crifresh.coordinator.kube;

import dev.crifresh.common.arch.MayUse;
