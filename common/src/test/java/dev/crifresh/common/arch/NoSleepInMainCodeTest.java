package dev.crifresh.common.arch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * No retry or wait in common's main code puts a thread to sleep ({@link PackageRules#noSleeps}): a caller owns the
 * timer. The agent's and the coordinator's {@code PackageRulesTest} hold their modules to the same rule; the catch tests show it fails
 * on a fixture ({@code dev.crifresh.sleepfixture}) that sleeps each way, naming the method and the call.
 */
class NoSleepInMainCodeTest {
    private static final JavaClasses FIXTURE = new ClassFileImporter().importPackages("dev.crifresh.sleepfixture");

    @Test
    void commonsMainCodeNeverSleeps() {
        JavaClasses main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.crifresh.common");
        assertTrue(main.size() > 50, "common's main classes were not found: " + main.size());
        PackageRules.noSleeps("dev.crifresh.common..").check(main);
    }

    @Test
    void aThreadSleepFailsNamingTheMethodAndTheCall() {
        String m = failure(PackageRules.noSleeps("dev.crifresh.sleepfixture.."));
        assertTrue(m.contains("Method <dev.crifresh.sleepfixture.Sleeper.pauseMillis(long)> calls method <java.lang.Thread.sleep(long)>"), m);
    }

    @Test
    void aTimeUnitSleepAndAParkFailToo() {
        String m = failure(PackageRules.noSleeps("dev.crifresh.sleepfixture.."));
        assertTrue(m.contains("Method <dev.crifresh.sleepfixture.Sleeper.pauseUnit(java.util.concurrent.TimeUnit)> calls method "
                + "<java.util.concurrent.TimeUnit.sleep(long)>"), m);
        assertTrue(m.contains("Method <dev.crifresh.sleepfixture.Sleeper.park()> calls method "
                + "<java.util.concurrent.locks.LockSupport.parkNanos(long)>"), m);
        assertTrue(!m.contains("Sleeper.timed"), "a timed wait on a future is no sleep: " + m);
    }

    private static String failure(ArchRule rule) {
        return assertThrows(AssertionError.class, () -> rule.check(FIXTURE)).getMessage();
    }
}
