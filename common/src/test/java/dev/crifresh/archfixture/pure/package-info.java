/** Fixture: claims no I/O, yet uses the seam. */
@NoIo
@MayUse({"archfixture.seam"})
package dev.crifresh.archfixture.pure;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
