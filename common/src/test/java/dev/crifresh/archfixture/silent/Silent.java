package dev.crifresh.archfixture.silent;

/** Fixture: a package without a package-info. */
public final class Silent {
}
