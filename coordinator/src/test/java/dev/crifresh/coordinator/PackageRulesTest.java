package dev.crifresh.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
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

    /**
     * The rollout reads no clock itself: time comes through {@code Ticker} and the injected {@code Clock}, so a test
     * moves it by hand (docs/internals.md, "The run").
     */
    @ArchTest
    static final ArchRule rolloutReadsNoClock = PackageRules.noClockReads("dev.crifresh.coordinator.rollout..");

    /** The rollout's seams: the Kubernetes operations (kube), the fence and retry (rollout.api), a roll's host and reboot. */
    private static final DescribedPredicate<JavaClass> SEAMS = DescribedPredicate.describe(
            "interfaces of the rollout's seams (coordinator.kube, rollout.api, RollHost, RollPorts.Reboot)",
            c -> c.isInterface() && (c.getPackageName().equals("dev.crifresh.coordinator.kube")
                    || c.getPackageName().equals("dev.crifresh.coordinator.rollout.api")
                    || c.getName().equals("dev.crifresh.coordinator.rollout.node.RollHost")
                    || c.getName().equals("dev.crifresh.coordinator.rollout.node.RollPorts$Reboot")));

    /**
     * A default method on a seam is a promise that every implementation may skip it: {@code gated} returning
     * {@code this} lost the worker-side fence, {@code clusterView} returning an empty list blinded the safety checks.
     * So a seam has none: each implementation says what it does.
     */
    @ArchTest
    static final ArchRule seamsHaveNoDefaultMethods = methods().that().areDeclaredInClassesThat(SEAMS)
            .should(new ArchCondition<JavaMethod>("be abstract or static, not default") {
                @Override
                public void check(JavaMethod method, ConditionEvents events) {
                    boolean isDefault = !method.getModifiers().contains(JavaModifier.ABSTRACT)
                            && !method.getModifiers().contains(JavaModifier.STATIC);
                    if (isDefault) {
                        events.add(SimpleConditionEvent.violated(method, method.getFullName()
                                + " is a default method on a seam: every implementation must say what it does"));
                    }
                }
            });

    /** No main code puts a thread to sleep (docs/internals.md, "Retries"); common's catch tests show the rule fails. */
    @ArchTest
    static final ArchRule mainCodeNeverSleeps = PackageRules.noSleeps("dev.crifresh.coordinator..");
}
