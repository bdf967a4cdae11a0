package dev.crifresh.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.crifresh.common.arch.Layers;
import dev.crifresh.common.arch.NoIo;
import dev.crifresh.common.arch.PackageRules;
import java.util.List;

/** The package rules of the coordinator module, as its packages' package-info state them (see {@link PackageRules}). */
@AnalyzeClasses(packages = "dev.crifresh.coordinator", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageRulesTest {
    private static final PackageRules RULES = PackageRules.of("coordinator");

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

    /** The rollout's sub-packages keep the order its package-info states: api < lease < plan < node < view < observe < run. */
    @ArchTest
    static void rolloutLayersAreApiLeasePlanNodeViewObserveRun(JavaClasses classes) {
        Layers layers = classes.getPackage("dev.crifresh.coordinator.rollout").getAnnotationOfType(Layers.class);
        assertEquals(List.of("api", "lease", "plan", "node", "view", "observe", "run"), List.of(layers.value()));
    }

    /** plan decides without I/O: no Kubernetes client, Vert.x or I/O type, nor a seam that uses one. */
    @ArchTest
    static void planDoesNoIo(JavaClasses classes) {
        assertTrue(classes.getPackage("dev.crifresh.coordinator.rollout.plan").isAnnotatedWith(NoIo.class),
                "rollout.plan's package-info states @NoIo");
        RULES.noIo(classes).check(classes);
    }
}
