/**
 * Text helpers: durations, strict UTF-8, I/O error messages. Not {@code @NoIo}: the messages read the I/O exception
 * types they describe.
 */
@MayUse({})
package dev.crifresh.common.text;

import dev.crifresh.common.arch.MayUse;
