/** Fixture: may use low, which the root's layers put above it. */
@MayUse({"archfixture.low"})
package dev.crifresh.archfixture.high;

import dev.crifresh.common.arch.MayUse;
