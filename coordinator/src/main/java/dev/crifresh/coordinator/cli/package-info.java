/**
 * The {@code crifresh-coordinator} command line: flags, key store, API preflight and the plan and rollout commands.
 */
@MayUse({
        "coordinator",
        "coordinator.base",
        "coordinator.driver",
        "coordinator.gate",
        "coordinator.gate.etcd",
        "coordinator.kube",
        "coordinator.report",
        "coordinator.silence"})
package dev.crifresh.coordinator.cli;

import dev.crifresh.common.arch.MayUse;
