package dev.crifresh.common.arch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * The package rules fail on code that breaks them, naming the class and the dependency: run on the fixture packages
 * {@code dev.crifresh.archfixture}, each of which breaks one rule.
 */
class PackageRulesCatchTest {
    private static final JavaClasses FIXTURE = new ClassFileImporter().importPackages("dev.crifresh.archfixture");
    private static final PackageRules RULES = PackageRules.of("archfixture");

    @Test
    void aCycleFailsNamingBothPackagesAndTheFields() {
        String m = assertThrows(AssertionError.class, () -> PackageRules.noCycles().check(FIXTURE)).getMessage();
        assertTrue(m.contains("archfixture.high") && m.contains("archfixture.low"), m);
        assertTrue(m.contains("dev.crifresh.archfixture.low.Low.high"), m);
    }

    @Test
    void aDependencyTheMayUseDoesNotListFailsNamingTheClassAndTheTarget() {
        String m = assertThrows(AssertionError.class, () -> RULES.mayUse(FIXTURE).check(FIXTURE)).getMessage();
        assertTrue(m.contains("every package of archfixture uses only the packages of its module that its @MayUse lists"), m);
        assertTrue(m.contains("Field <dev.crifresh.archfixture.low.Low.high> has type <dev.crifresh.archfixture.high.High>"), m);
        assertTrue(!m.contains("<dev.crifresh.archfixture.high.High.low>"), "high may use low: " + m);
    }

    @Test
    void aMissingOrWrongStatementFailsNamingThePackage() {
        String m = assertThrows(AssertionError.class, () -> RULES.assertStated(FIXTURE)).getMessage();
        assertTrue(m.contains("archfixture.silent: its package-info states no @MayUse"), m);
        assertTrue(m.contains("archfixture.low: its @MayUse names archfixture.gone, no package of the module"), m);
        assertTrue(m.contains("archfixture.high: its @MayUse names archfixture.low, which the @Layers of archfixture puts at or above it"), m);
    }

    @Test
    void aNoIoPackageUsingAnIoSeamFailsNamingTheClassAndTheSeam() {
        String m = assertThrows(AssertionError.class, () -> RULES.noIo(FIXTURE).check(FIXTURE)).getMessage();
        assertTrue(m.contains("every @NoIo package of archfixture uses no I/O type"), m);
        assertTrue(m.contains("Field <dev.crifresh.archfixture.pure.Pure.seam> has type <dev.crifresh.archfixture.seam.Seam>"), m);
        assertTrue(!m.contains("Pure.charset"), "a charset turns bytes into text, no I/O: " + m);
    }

    @Test
    void aClockReadFailsNamingEachCallAndReference() {
        String m = assertThrows(AssertionError.class,
                () -> PackageRules.noClockReads("dev.crifresh.archfixture.clock..").check(FIXTURE)).getMessage();
        assertTrue(m.contains("no class in dev.crifresh.archfixture.clock.. reads System.nanoTime, Instant.now or Clock.systemUTC"), m);
        assertTrue(m.contains("Method <dev.crifresh.archfixture.clock.Clocks.nanos()> calls method <java.lang.System.nanoTime()>"), m);
        assertTrue(m.contains("Method <dev.crifresh.archfixture.clock.Clocks.now()> calls method <java.time.Instant.now()>"), m);
        assertTrue(m.contains("Method <dev.crifresh.archfixture.clock.Clocks.nowOf(java.time.Clock)> calls method <java.time.Instant.now(java.time.Clock)>"), m);
        assertTrue(m.contains("Method <dev.crifresh.archfixture.clock.Clocks.utc()> calls method <java.time.Clock.systemUTC()>"), m);
        assertTrue(m.contains("Clocks.nanosLater()> references method <java.lang.System.nanoTime()>"), m);
        assertTrue(m.contains("Clocks.nowLater()> references method <java.time.Instant.now()>"), m);
        assertTrue(!m.contains("Clocks.injected"), "an injected clock is no clock read: " + m);
    }

    @Test
    void aPackageThatReadsNoClockPasses() {
        PackageRules.noClockReads("dev.crifresh.archfixture.high..").check(FIXTURE);
    }
}
