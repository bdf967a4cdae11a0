/**
 * Text helpers: durations, strict UTF-8, I/O error messages.
 */
@MayUse({})
package dev.crifresh.common.text;

import dev.crifresh.common.arch.MayUse;
