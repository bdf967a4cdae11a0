/** Fixture: an I/O seam. */
@MayUse({})
package dev.crifresh.archfixture.seam;

import dev.crifresh.common.arch.MayUse;
