/**
 * The HTTP server for /metrics and the probes, and the metrics.
 */
@MayUse({"agent.loop"})
package dev.crifresh.agent.http;

import dev.crifresh.common.arch.MayUse;
