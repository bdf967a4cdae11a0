/**
 * Fault injection around the mock API server ({@link dev.crifresh.mockapi.fault.FaultyApi}): a TCP proxy per named
 * client (refuse, hang, delay) and a dispatcher that fails chosen requests, with the history of every exchange.
 */
@MayUse({"mockapi"})
package dev.crifresh.mockapi.fault;

import dev.crifresh.common.arch.MayUse;
