/**
 * Registry credentials as containerd reads them: config files, hosts, fingerprints.
 */
@MayUse({})
package dev.crifresh.common.registry;

import dev.crifresh.common.arch.MayUse;
