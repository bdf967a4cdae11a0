/**
 * Attestations: claims, Ed25519 signing and verification, the trust bundle.
 */
@MayUse({"common.evidence", "common.registry"})
package dev.crifresh.common.attest;

import dev.crifresh.common.arch.MayUse;
