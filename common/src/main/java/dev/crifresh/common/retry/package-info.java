/**
 * The one retry policy every back-off in crifresh uses: {@link dev.crifresh.common.retry.RetryPolicy}, a pure
 * function from the attempt number and the time left to the next delay or "give up". Callers own the timers;
 * a loop keeps its {@link dev.crifresh.common.retry.Retry} (policy, failures, first attempt) inside its state.
 */
@MayUse({})
@NoIo
package dev.crifresh.common.retry;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
