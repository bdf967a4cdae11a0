/**
 * What every command line shares: version and help text (read from the jar's resources: I/O).
 */
@MayUse({})
package dev.crifresh.common.cli;

import dev.crifresh.common.arch.MayUse;
