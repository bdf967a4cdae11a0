/** Fixture: may use nothing, names a package that does not exist, yet uses high. */
@MayUse({"archfixture.gone"})
package dev.crifresh.archfixture.low;

import dev.crifresh.common.arch.MayUse;
