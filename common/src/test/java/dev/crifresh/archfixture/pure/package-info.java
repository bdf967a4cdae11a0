/** Fixture: claims no I/O, yet uses the seam (its charset is no I/O). */
@NoIo
@MayUse({"archfixture.seam"})
package dev.crifresh.archfixture.pure;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
