package dev.crifresh.mockapi;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.crifresh.common.arch.PackageRules;

/** The package rules of the mockapi module, as its packages' package-info state them (see {@link PackageRules}). */
@AnalyzeClasses(packages = "dev.crifresh.mockapi", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageRulesTest {
    private static final PackageRules RULES = PackageRules.of("mockapi");

    @ArchTest
    static final ArchRule noCycleBetweenPackages = PackageRules.noCycles();

    @ArchTest
    static void everyPackageStatesWhatItMayUse(JavaClasses classes) {
        RULES.assertStated(classes);
    }

    @ArchTest
    static void everyPackageUsesOnlyWhatItsPackageInfoLists(JavaClasses classes) {
        RULES.mayUse(classes).check(classes);
    }
}
