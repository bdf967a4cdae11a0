package dev.crifresh.common.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.lang.ArchRule;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The rule that no main code puts a thread to sleep to wait for time: no {@link Thread#sleep}, no
 * {@link TimeUnit#sleep}, no {@link LockSupport} {@code park} with a deadline (every overload). A retry or a wait takes
 * its delay from {@code common.retry.RetryPolicy} and leaves the waiting to a timer its caller owns (a Vert.x timer, the
 * coordinator's {@code Ticker}), so tests drive time by hand and no worker thread is held while nothing happens.
 * Copied into each module's {@code NoSleepInMainCodeTest} (common's test-jar carries only {@code PackageRules}).
 */
final class NoSleep {
    private NoSleep() {
    }

    /** @param packages the packages judged, e.g. {@code dev.crifresh.common..} */
    static ArchRule in(String packages) {
        return noClasses().that().resideInAPackage(packages)
                .should().callMethodWhere(SLEEPS)
                .because("a thread that sleeps holds a worker and hides time from the tests: wait on a timer the caller owns "
                        + "(docs/internals.md, \"Retries\")");
    }

    private static final DescribedPredicate<JavaMethodCall> SLEEPS = new DescribedPredicate<>(
            "Thread.sleep, TimeUnit.sleep or LockSupport.park with a deadline") {
        @Override
        public boolean test(JavaMethodCall call) {
            String owner = call.getTargetOwner().getName();
            String name = call.getName();
            return owner.equals(Thread.class.getName()) && name.equals("sleep")
                    || call.getTargetOwner().isAssignableTo(TimeUnit.class) && name.equals("sleep")
                    || owner.equals(LockSupport.class.getName()) && (name.equals("parkNanos") || name.equals("parkUntil"));
        }
    };
}
