/**
 * The reality harness (docs/reality.md): a real containerd of each generation in a private mount namespace, a real
 * registry with a real credential, a CRI client on the generated {@code cri.v1} stubs, and the machine-wide lock
 * their suites share. Test-only: never shipped.
 */
@MayUse({"reality.cri.v1"})
package dev.crifresh.reality;

import dev.crifresh.common.arch.MayUse;
