/**
 * Attestations: claims, Ed25519 signing and verification, the trust bundle.
 */
@NoIo
@MayUse({"common.evidence", "common.registry"})
package dev.crifresh.common.attest;

import dev.crifresh.common.arch.MayUse;
import dev.crifresh.common.arch.NoIo;
