package dev.crifresh.coordinator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * No main code of the coordinator puts a thread to sleep: no {@code Thread.sleep}, {@code TimeUnit.sleep} or
 * {@code LockSupport.parkNanos}/{@code parkUntil}. A retry takes its delay from {@code common.retry.RetryPolicy} and
 * waits on a timer its caller owns. The same rule as common's {@code NoSleepInMainCodeTest}, whose catch tests show it
 * fails on code that sleeps (common's test-jar carries only {@code PackageRules}, so the rule is repeated here).
 */
@AnalyzeClasses(packages = "dev.crifresh.coordinator", importOptions = ImportOption.DoNotIncludeTests.class)
class NoSleepInMainCodeTest {
    private static final DescribedPredicate<JavaMethodCall> SLEEPS = new DescribedPredicate<>(
            "Thread.sleep, TimeUnit.sleep or LockSupport.park with a deadline") {
        @Override
        public boolean test(JavaMethodCall call) {
            String owner = call.getTargetOwner().getName();
            String name = call.getName();
            return owner.equals("java.lang.Thread") && name.equals("sleep")
                    || call.getTargetOwner().isAssignableTo(java.util.concurrent.TimeUnit.class) && name.equals("sleep")
                    || owner.equals("java.util.concurrent.locks.LockSupport") && (name.equals("parkNanos") || name.equals("parkUntil"));
        }
    };

    @ArchTest
    static final ArchRule noThreadSleeps = noClasses().that().resideInAPackage("dev.crifresh.coordinator..")
            .should().callMethodWhere(SLEEPS)
            .because("a thread that sleeps holds a worker and hides time from the tests: wait on a timer the caller owns "
                    + "(docs/internals.md, \"Retries\")");
}
