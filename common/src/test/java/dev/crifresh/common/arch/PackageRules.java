package dev.crifresh.common.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaPackage;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The package rules every module's {@code PackageRulesTest} checks with ArchUnit, read from the packages' own
 * {@code package-info.java}: no cycle between packages, each package uses only what its {@link MayUse} lists, and a
 * {@link NoIo} package uses no I/O type. A violation fails the test naming the class and the dependency.
 */
public final class PackageRules {
    /**
     * The packages whose types do I/O: a {@link NoIo} package uses none of them. Of {@code java.nio}, the files and
     * channels: its buffers ({@code java.nio}) and {@code java.nio.charset} only turn bytes into text and back.
     */
    public static final List<String> IO_PACKAGES = List.of(
            "io.fabric8.kubernetes.client..", "io.vertx..", "java.io..", "java.nio.file..", "java.nio.channels..",
            "java.net..");

    private static final String PREFIX = "dev.crifresh.";

    private final String root;
    private final Set<String> generated;

    private PackageRules(String root, Set<String> generated) {
        this.root = root;
        this.generated = generated;
    }

    /**
     * @param module    the module's top package relative to {@code dev.crifresh.}, e.g. {@code "coordinator"}
     * @param generated packages of generated code (relative likewise), which carry no package-info
     */
    public static PackageRules of(String module, String... generated) {
        Set<String> full = new TreeSet<>();
        for (String g : generated) {
            full.add(PREFIX + g);
        }
        return new PackageRules(PREFIX + module, full);
    }

    /** No cycle between the packages ({@code dev.crifresh.(**)} slices). */
    public static ArchRule noCycles() {
        return slices().matching(PREFIX + "(**)").should().beFreeOfCycles()
                .as("no cycle between the packages dev.crifresh.(**)");
    }

    /**
     * Every package states its {@link MayUse} (generated code aside), names only packages of the module in it, and
     * keeps the order of any {@link Layers}; fails listing every package that does not.
     */
    public void assertStated(JavaClasses classes) {
        List<String> problems = new ArrayList<>();
        withoutMayUse(classes).forEach(p -> problems.add(p + ": its package-info states no @MayUse"));
        problems.addAll(unknownInMayUse(classes));
        problems.addAll(layerViolations(classes));
        if (!problems.isEmpty()) {
            throw new AssertionError("package rules of " + relative(root) + " broken:\n  " + String.join("\n  ", problems));
        }
    }

    /** Each package's classes use only the packages of the module that its {@link MayUse} lists. */
    public ArchRule mayUse(JavaClasses classes) {
        List<ArchRule> rules = new ArrayList<>();
        for (var e : stated(classes).entrySet()) {
            String pkg = e.getKey();
            Set<String> allowed = e.getValue();
            DescribedPredicate<JavaClass> notListed = DescribedPredicate.describe("a package of " + relative(root)
                    + " not listed", c -> inModule(c.getPackageName()) && !c.getPackageName().equals(pkg)
                    && !allowed.contains(c.getPackageName()) && !isRuleAnnotation(c));
            rules.add(noClasses().that().resideInAPackage(pkg).should().dependOnClassesThat(notListed)
                    .as(relative(pkg) + " uses only " + (allowed.isEmpty() ? "itself" : names(allowed))
                            + " of its module (its package-info: @MayUse)"));
        }
        return CompositeArchRule.of(rules)
                .as("every package of " + relative(root) + " uses only the packages of its module that its @MayUse lists");
    }

    /** The module's packages whose package-info states no {@link MayUse}, generated code aside. */
    Set<String> withoutMayUse(JavaClasses classes) {
        Set<String> out = new TreeSet<>();
        for (String pkg : packages(classes)) {
            if (!generated.contains(pkg) && annotation(classes, pkg).isEmpty()) {
                out.add(relative(pkg));
            }
        }
        return out;
    }

    /** Names in a {@link MayUse} that are no package of the module: a typo, or a package that moved. */
    Set<String> unknownInMayUse(JavaClasses classes) {
        Set<String> known = packages(classes);
        Set<String> out = new TreeSet<>();
        stated(classes).forEach((pkg, allowed) -> allowed.stream().filter(a -> !known.contains(a))
                .forEach(a -> out.add(relative(pkg) + ": its @MayUse names " + relative(a) + ", no package of the module")));
        return out;
    }

    /**
     * Where a {@link Layers} package's sub-package may use itself or a later layer by its {@link MayUse}, or a layer
     * named is no package of the module.
     */
    Set<String> layerViolations(JavaClasses classes) {
        Set<String> known = packages(classes);
        TreeMap<String, Set<String>> stated = stated(classes);
        Set<String> out = new TreeSet<>();
        for (String pkg : known) {
            Optional<Layers> layers = classes.getPackage(pkg).tryGetAnnotationOfType(Layers.class);
            if (layers.isEmpty()) {
                continue;
            }
            List<String> order = new ArrayList<>();
            Arrays.stream(layers.get().value()).forEach(l -> order.add(pkg + "." + l));
            for (int i = 0; i < order.size(); i++) {
                String layer = order.get(i);
                if (!known.contains(layer)) {
                    out.add(relative(pkg) + ": its @Layers names " + relative(layer) + ", no package of the module");
                    continue;
                }
                Set<String> uses = stated.getOrDefault(layer, Set.of());
                for (String later : order.subList(i, order.size())) {
                    if (uses.contains(later)) {
                        out.add(relative(layer) + ": its @MayUse names " + relative(later) + ", which the @Layers of "
                                + relative(pkg) + " puts at or above it");
                    }
                }
            }
        }
        return out;
    }

    /** The classes of every {@link NoIo} package use no I/O type, neither directly nor through a type of the module. */
    public ArchRule noIo(JavaClasses classes) {
        List<ArchRule> rules = new ArrayList<>();
        DescribedPredicate<JavaClass> io = DescribedPredicate.describe("an I/O type (" + String.join(", ", IO_PACKAGES)
                + ", or a type of the module that uses one)", c -> isIo(c) || (inModule(c.getPackageName())
                && c.getDirectDependenciesFromSelf().stream().anyMatch(d -> isIo(d.getTargetClass()))));
        for (String pkg : packages(classes)) {
            JavaPackage p = classes.getPackage(pkg);
            if (p.isAnnotatedWith(NoIo.class)) {
                rules.add(noClasses().that().resideInAPackage(pkg).should().dependOnClassesThat(io)
                        .as(relative(pkg) + " does no I/O (its package-info: @NoIo)"));
            }
        }
        if (rules.isEmpty()) {
            throw new IllegalStateException("no package of " + relative(root) + " is marked @NoIo");
        }
        return CompositeArchRule.of(rules).as("every @NoIo package of " + relative(root) + " uses no I/O type");
    }

    /** The clock reads {@link #noClockReads} forbids: owner class, then method names. */
    private static final Map<String, Set<String>> CLOCK_READS = Map.of(
            "java.lang.System", Set.of("nanoTime"),
            "java.time.Instant", Set.of("now"),
            "java.time.Clock", Set.of("systemUTC"));

    /**
     * No class in {@code packageIdentifier} (ArchUnit's syntax: {@code "dev.crifresh.coordinator.rollout.."}) reads
     * the machine's clock itself: no call of or reference to {@code System.nanoTime}, {@code Instant.now} (any
     * overload) or {@code Clock.systemUTC}. Time comes injected, so tests move it by hand.
     */
    public static ArchRule noClockReads(String packageIdentifier) {
        DescribedPredicate<JavaAccess<?>> clockRead = DescribedPredicate.describe(
                "System.nanoTime, Instant.now or Clock.systemUTC", a -> CLOCK_READS
                        .getOrDefault(a.getTargetOwner().getName(), Set.of()).contains(a.getName()));
        return noClasses().that().resideInAPackage(packageIdentifier).should().accessTargetWhere(clockRead)
                .as("no class in " + packageIdentifier + " reads System.nanoTime, Instant.now or Clock.systemUTC "
                        + "(time comes injected)");
    }

    /**
     * No class in {@code packageIdentifier} puts a thread to sleep to wait for time: no {@code Thread.sleep}, no
     * {@code TimeUnit.sleep}, no {@code LockSupport.parkNanos}/{@code parkUntil}. A retry or a wait takes its delay from
     * {@code common.retry.RetryPolicy} and leaves the waiting to a timer its caller owns (a Vert.x timer, the
     * coordinator's {@code Ticker}), so tests drive time by hand and no worker thread is held while nothing happens.
     */
    public static ArchRule noSleeps(String packageIdentifier) {
        DescribedPredicate<JavaAccess<?>> sleeps = DescribedPredicate.describe(
                "Thread.sleep, TimeUnit.sleep or LockSupport.park with a deadline", a -> {
                    String owner = a.getTargetOwner().getName();
                    String name = a.getName();
                    return owner.equals(Thread.class.getName()) && name.equals("sleep")
                            || a.getTargetOwner().isAssignableTo(TimeUnit.class) && name.equals("sleep")
                            || owner.equals(LockSupport.class.getName()) && (name.equals("parkNanos") || name.equals("parkUntil"));
                });
        return noClasses().that().resideInAPackage(packageIdentifier).should().accessTargetWhere(sleeps)
                .because("a thread that sleeps holds a worker and hides time from the tests: wait on a timer the caller owns "
                        + "(docs/internals.md, \"Retries\")");
    }

    /** The rules' own annotations, which every package-info uses. */
    private static boolean isRuleAnnotation(JavaClass c) {
        return c.isEquivalentTo(MayUse.class) || c.isEquivalentTo(Layers.class) || c.isEquivalentTo(NoIo.class);
    }

    private static boolean isIo(JavaClass c) {
        String name = c.getPackageName();
        for (String p : IO_PACKAGES) {
            String base = p.substring(0, p.length() - 2);
            if (name.equals(base) || name.startsWith(base + ".")) {
                return true;
            }
        }
        return false;
    }

    private TreeMap<String, Set<String>> stated(JavaClasses classes) {
        TreeMap<String, Set<String>> out = new TreeMap<>();
        for (String pkg : packages(classes)) {
            annotation(classes, pkg).ifPresent(m -> {
                Set<String> allowed = new TreeSet<>();
                Arrays.stream(m.value()).forEach(a -> allowed.add(PREFIX + a));
                out.put(pkg, allowed);
            });
        }
        return out;
    }

    private static Optional<MayUse> annotation(JavaClasses classes, String pkg) {
        return classes.getPackage(pkg).tryGetAnnotationOfType(MayUse.class);
    }

    /** The module's packages that hold at least one class (a package-info counts). */
    private Set<String> packages(JavaClasses classes) {
        Set<String> out = new TreeSet<>();
        for (JavaClass c : classes) {
            if (inModule(c.getPackageName())) {
                out.add(c.getPackageName());
            }
        }
        return out;
    }

    private boolean inModule(String pkg) {
        return pkg.equals(root) || pkg.startsWith(root + ".");
    }

    private static String relative(String pkg) {
        return pkg.startsWith(PREFIX) ? pkg.substring(PREFIX.length()) : pkg;
    }

    private static String names(Set<String> pkgs) {
        List<String> out = new ArrayList<>();
        pkgs.forEach(p -> out.add(relative(p)));
        return String.join(", ", out);
    }
}
