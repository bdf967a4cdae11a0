/**
 * What the agent reads on its node: /proc, the boot clock, the config files, the mounts. The bottom of the module.
 */
@MayUse({})
package dev.crifresh.agent.host;

import dev.crifresh.common.arch.MayUse;
