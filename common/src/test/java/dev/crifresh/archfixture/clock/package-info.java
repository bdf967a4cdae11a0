/** Fixture: reads the machine's clock in each way the clock rule forbids, and once through an injected clock. */
@MayUse({})
package dev.crifresh.archfixture.clock;

import dev.crifresh.common.arch.MayUse;
