package dev.crifresh.agent;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.crifresh.common.arch.PackageRules;

/** The package rules of the agent module, as its packages' package-info state them (see {@link PackageRules}). */
@AnalyzeClasses(packages = "dev.crifresh.agent", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageRulesTest {
    private static final PackageRules RULES = PackageRules.of("agent", "agent.cri.v1", "agent.introspect.v1");

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

    /** No main code puts a thread to sleep (docs/internals.md, "Retries"); common's catch tests show the rule fails. */
    @ArchTest
    static final ArchRule mainCodeNeverSleeps = PackageRules.noSleeps("dev.crifresh.agent..");
}
