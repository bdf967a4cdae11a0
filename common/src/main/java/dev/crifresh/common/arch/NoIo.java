package dev.crifresh.common.arch;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Stated on a package in its {@code package-info.java}: its classes make decisions without I/O. None of them uses
 * a type of {@code io.fabric8.kubernetes.client}, {@code io.vertx}, {@code java.io}, {@code java.nio.file},
 * {@code java.nio.channels} or {@code java.net}, nor a type of its own module that itself uses one (an I/O seam such
 * as {@code PodOps}); buffers and charsets turn bytes into text and are no I/O. The build checks it: the module's
 * {@code PackageRulesTest} (ArchUnit) fails naming the class and the dependency.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PACKAGE)
public @interface NoIo {
}
