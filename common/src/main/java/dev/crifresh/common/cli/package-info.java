/**
 * What every command line shares: version and help text.
 */
@MayUse({})
package dev.crifresh.common.cli;

import dev.crifresh.common.arch.MayUse;
