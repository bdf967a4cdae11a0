package dev.crifresh.common.arch;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The packages of its own module that a package may use, stated on the package in its {@code package-info.java}:
 * {@code @MayUse({"coordinator.base", "coordinator.classify"})}. Each name is relative to {@code dev.crifresh.}
 * ({@code "coordinator"} is the module's top package); a package may always use itself and every package of
 * the modules its pom depends on. The build checks it: each module's {@code PackageRulesTest} (ArchUnit) fails,
 * naming the class and the dependency, when a class uses a package of its module that its package does not list.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PACKAGE)
public @interface MayUse {
    /** The packages of the same module this one may use, relative to {@code dev.crifresh.}; empty for none. */
    String[] value();
}
