/**
 * The package rules that a package states in its own {@code package-info.java} and the build checks with ArchUnit
 * (each module's {@code PackageRulesTest}): the packages it may use ({@link dev.crifresh.common.arch.MayUse}), the
 * order of its sub-packages ({@link dev.crifresh.common.arch.Layers}), and decisions without I/O
 * ({@link dev.crifresh.common.arch.NoIo}).
 */
@MayUse({})
package dev.crifresh.common.arch;
