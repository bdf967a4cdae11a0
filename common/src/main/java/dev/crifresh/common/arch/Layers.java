package dev.crifresh.common.arch;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Stated on a package in its {@code package-info.java}: its sub-packages are layers, named from the bottom up
 * ({@code @Layers({"api", "lease", "plan"})} means api &lt; lease &lt; plan), and each may use only the ones before
 * it: no sub-package's {@link MayUse} names itself or a later one. The build checks it in the module's
 * {@code PackageRulesTest}; {@link MayUse} then holds the code to the lists.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PACKAGE)
public @interface Layers {
    /** The sub-packages, relative to the annotated package, from the bottom layer up. */
    String[] value();
}
