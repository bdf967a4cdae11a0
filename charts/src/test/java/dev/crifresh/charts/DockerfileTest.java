package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Dockerfiles' text: the jar each copies is the one its module's pom builds, the ENTRYPOINT runs
 * that jar with JVM flags this JDK 17 accepts, base images are pinned, the runtime user is not root,
 * and the build context lets the COPY sources through. The images module builds and runs them.
 */
class DockerfileTest {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /**
     * The runtime copies the jar from the stage {@code jar}, which is the Maven build stage by default
     * ({@code JAR_SOURCE=build}) or the stage holding the jar of the build context
     * ({@code JAR_SOURCE=prebuilt}, context {@code <module>/target}); both put the shaded jar the module's
     * pom builds at /out.
     */
    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void copiesTheJarItsModuleBuildsAndRunsIt(String module) throws Exception {
        List<Instruction> file = parse(module);
        String jar = shadedJar(module);
        String jarName = Path.of(jar).getFileName().toString();
        assertEquals(module + "/target/" + jarName, jar, "the prebuilt context is the module's target directory");
        assertEquals("build", arg(file, "JAR_SOURCE"), "docker build from source is the default");
        assertTrue(file.stream().anyMatch(i -> i.keyword.equals("FROM") && i.args.equals("${JAR_SOURCE} AS jar")));

        List<Instruction> build = stage(file, "build");
        assertTrue(build.stream().anyMatch(i -> i.keyword.equals("WORKDIR") && i.args.equals("/src")));
        assertTrue(build.stream().anyMatch(i -> i.keyword.equals("RUN") && i.args.contains("./mvnw")
                && i.args.contains("-pl " + module + " -am") && i.args.contains("package")
                && i.args.contains("cp " + jar + " /out/")), "built with the wrapper, the jar put at /out");
        assertEquals(List.of(new Instruction("COPY", jarName + " /out/" + jarName)),
                stage(file, "prebuilt").stream().filter(i -> !i.keyword.equals("FROM")).toList());

        Instruction copy = file.stream()
                .filter(i -> i.keyword.equals("COPY") && i.args.startsWith("--from=jar "))
                .findFirst().orElseThrow(() -> new AssertionError("no COPY --from=jar in Dockerfile." + module));
        String[] parts = copy.args.split("\\s+");
        assertEquals("/out/" + jarName, parts[1]);
        String installed = parts[2];

        List<String> entrypoint = entrypoint(file);
        assertEquals("java", entrypoint.get(0));
        int jarFlag = entrypoint.indexOf("-jar");
        assertTrue(jarFlag > 0, entrypoint.toString());
        assertEquals(installed, entrypoint.get(jarFlag + 1), "ENTRYPOINT runs the jar the image contains");
        assertEquals(jarFlag + 2, entrypoint.size(), "the command's arguments come from CMD / the pod spec");
    }

    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void theJvmFlagsAreAcceptedByAJdk17(String module) throws Exception {
        List<String> entrypoint = entrypoint(parse(module));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(entrypoint.subList(1, entrypoint.indexOf("-jar")));
        command.add("-version");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "java -version did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), command + "\n" + output);
        assertTrue(output.contains("version \"17"), "this check needs a JDK 17 like the image's: " + output);
        assertFalse(output.contains("Unrecognized") || output.contains("Ignoring option"), output);
    }

    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void theImagesCommandStartsTheShadedJar(String module) throws Exception {
        List<String> entrypoint = entrypoint(parse(module));
        Path jar = ROOT.resolve(shadedJar(module));
        assertTrue(Files.isRegularFile(jar), jar + " is built by the " + module + " module's package phase (run `verify`)");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(entrypoint.subList(1, entrypoint.indexOf("-jar")));
        command.addAll(List.of("-jar", jar.toString(), "--version"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "crifresh-" + module + " did not answer --version");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.startsWith("crifresh-" + module + " "), output);
    }

    /**
     * Base images are build arguments (a mirror, or the images module's local stand-ins), whose defaults
     * are pinned to exact versions.
     */
    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void baseImagesArePinnedAndTheRuntimeUserIsNotRoot(String module) throws Exception {
        List<Instruction> file = parse(module);
        Pattern pinned = Pattern.compile("^[a-z0-9./-]+:(v?[0-9]+\\.[0-9]+\\.[0-9]+[A-Za-z0-9._-]*)(@sha256:[a-f0-9]{64})?$");
        List<Instruction> froms = file.stream().filter(i -> i.keyword.equals("FROM")).toList();
        assertTrue(froms.size() >= 2, "multi-stage: a builder and a runtime");
        for (Instruction from : froms) {
            String image = withoutPlatform(from.args).split("\\s+")[0];
            if (image.equals("scratch") || image.equals("${JAR_SOURCE}")) {
                continue;
            }
            Matcher arg = Pattern.compile("^\\$\\{([A-Z_]+_IMAGE)}$").matcher(image);
            assertTrue(arg.matches(), "a base image comes from a build argument: " + from.args);
            String value = arg(file, arg.group(1));
            assertFalse(value.endsWith(":latest"), value);
            assertTrue(pinned.matcher(value).matches(), "pinned to an exact version: " + arg.group(1) + "=" + value);
        }
        assertEquals(TARGET_PLATFORM + " ${JRE_IMAGE}", froms.get(froms.size() - 1).args, "the runtime stage is the JRE");
        assertTrue(arg(file, "JRE_IMAGE").contains("-jre-"));
        assertTrue(arg(file, "JDK_IMAGE").contains("-jdk-"));
        assertTrue(froms.stream().anyMatch(f -> f.args.equals(BUILD_PLATFORM + " ${JDK_IMAGE} AS build")));

        List<Instruction> users = file.stream().filter(i -> i.keyword.equals("USER")).toList();
        assertFalse(users.isEmpty(), "USER is set explicitly");
        String user = users.get(users.size() - 1).args;
        assertEquals("65532:65532", user, "runs as the non-root uid 65532");
    }

    static final String BUILD_PLATFORM = "--platform=$BUILDPLATFORM";
    static final String TARGET_PLATFORM = "--platform=$TARGETPLATFORM";

    /**
     * A multi-platform build (release.yml: linux/amd64,linux/arm64, no QEMU) runs every RUN on the build
     * machine's platform: each stage that runs a program is {@code FROM --platform=$BUILDPLATFORM}, and the
     * stages of the target platform (the runtime, talosctl) only copy and say {@code --platform=$TARGETPLATFORM}
     * (buildah 1.28 would otherwise keep the previous stage's platform). No other --platform is used.
     */
    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void everyStageThatRunsAProgramIsBuiltOnTheBuildPlatform(String module) throws Exception {
        List<List<Instruction>> stages = new ArrayList<>();
        for (Instruction i : parse(module)) {
            if (i.keyword.equals("FROM")) {
                stages.add(new ArrayList<>());
            }
            if (!stages.isEmpty()) {
                stages.get(stages.size() - 1).add(i);
            }
        }
        int running = 0;
        for (List<Instruction> stage : stages) {
            String from = stage.get(0).args;
            boolean runs = stage.stream().anyMatch(i -> i.keyword.equals("RUN"));
            assertTrue(!from.startsWith("--platform") || from.startsWith(BUILD_PLATFORM + " ") || from.startsWith(TARGET_PLATFORM + " "),
                    "only $BUILDPLATFORM or $TARGETPLATFORM: " + from);
            boolean fromImage = withoutPlatform(from).startsWith("${") && !withoutPlatform(from).startsWith("${JAR_SOURCE}");
            assertTrue(!fromImage || from.startsWith("--platform="), "an image stage names its platform: FROM " + from);
            if (runs) {
                running++;
                assertTrue(from.startsWith(BUILD_PLATFORM + " "), "a stage that runs a program must be FROM "
                        + BUILD_PLATFORM + ", else a cross-platform build emulates it: FROM " + from);
            }
        }
        assertTrue(running >= 1, "the Maven build stage runs a program");
        List<Instruction> runtime = stages.get(stages.size() - 1);
        assertTrue(runtime.get(0).args.startsWith(TARGET_PLATFORM + " "), "the runtime is the target platform's");
        assertTrue(runtime.stream().noneMatch(i -> i.keyword.equals("RUN")), "the runtime stage only copies");
    }

    private static String withoutPlatform(String fromArgs) {
        return fromArgs.startsWith("--platform=") ? fromArgs.substring(fromArgs.indexOf(' ') + 1) : fromArgs;
    }

    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void carriesOciLabels(String module) throws Exception {
        String labels = parse(module).stream().filter(i -> i.keyword.equals("LABEL"))
                .map(i -> i.args).reduce("", String::concat);
        for (String label : List.of("title", "description", "version", "revision", "base.name")) {
            assertTrue(labels.contains("org.opencontainers.image." + label + "="), label + " in " + labels);
        }
        assertTrue(labels.contains("org.opencontainers.image.title=\"crifresh-" + module + "\""), labels);
    }

    @org.junit.jupiter.api.Test
    void theCoordinatorShipsTalosctlFromTheOfficialImage() throws Exception {
        List<Instruction> file = parse("coordinator");
        assertTrue(arg(file, "TALOSCTL_IMAGE").matches("ghcr\\.io/siderolabs/talosctl:v[0-9]+\\.[0-9]+\\.[0-9]+"));
        assertTrue(file.stream().anyMatch(i -> i.keyword.equals("FROM") && i.args.equals(TARGET_PLATFORM + " ${TALOSCTL_IMAGE} AS talosctl")));
        assertTrue(file.stream().anyMatch(i -> i.keyword.equals("COPY")
                && i.args.equals("--from=talosctl /talosctl /usr/local/bin/talosctl")));
    }

    /**
     * {@code ./mvnw -pl <module> -am package} needs every reactor module's pom and the sources of every
     * project module the image's module depends on (test scope included: test sources are compiled
     * even with -DskipTests).
     */
    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void copiesEveryPomAndTheSourcesOfEveryModuleTheBuildNeeds(String module) throws Exception {
        List<String> copies = parse(module).stream().filter(i -> i.keyword.equals("COPY")).map(i -> i.args).toList();
        for (String reactorModule : elements(ROOT.resolve("pom.xml"), "module")) {
            assertTrue(copies.contains(reactorModule + "/pom.xml " + reactorModule + "/"),
                    "Dockerfile." + module + " does not copy " + reactorModule + "/pom.xml, which the reactor needs");
        }
        java.util.Deque<String> needed = new java.util.ArrayDeque<>(List.of(module));
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (!needed.isEmpty()) {
            String m = needed.pop();
            if (!seen.add(m)) {
                continue;
            }
            assertTrue(copies.contains(m + "/src " + m + "/src"),
                    "Dockerfile." + module + " does not copy " + m + "/src, which building " + module + " needs");
            for (String artifact : elements(ROOT.resolve(m).resolve("pom.xml"), "artifactId")) {
                if (artifact.startsWith("crifresh-") && !artifact.equals("crifresh-parent")
                        && !artifact.equals("crifresh-" + m)) {
                    needed.push(artifact.substring("crifresh-".length()));
                }
            }
        }
    }

    private static List<String> elements(Path pomFile, String tag) throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pomFile.toFile());
        org.w3c.dom.NodeList nodes = pom.getElementsByTagName(tag);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add(nodes.item(i).getTextContent().trim());
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"agent", "coordinator"})
    void theBuildContextLetsEveryCopySourceThrough(String module) throws Exception {
        List<String> allowed = Files.readAllLines(ROOT.resolve(".dockerignore")).stream()
                .filter(l -> l.startsWith("!")).map(l -> trimSlash(l.substring(1))).toList();
        List<Instruction> prebuilt = stage(parse(module), "prebuilt");
        for (Instruction copy : parse(module)) {
            // the prebuilt stage's context is <module>/target, not the repository
            if (!copy.keyword.equals("COPY") || copy.args.startsWith("--from=") || prebuilt.contains(copy)) {
                continue;
            }
            String[] parts = copy.args.split("\\s+");
            for (int i = 0; i < parts.length - 1; i++) {
                String source = trimSlash(parts[i]);
                assertTrue(Files.exists(ROOT.resolve(source)), "COPY source missing from the repository: " + source);
                assertTrue(allowed.stream().anyMatch(a -> a.equals(source) || a.startsWith(source + "/")),
                        ".dockerignore excludes " + source);
            }
        }
    }

    private static String trimSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** The shaded jar's path relative to the repository, from the shade plugin's outputFile in the pom. */
    static String shadedJar(String module) throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(ROOT.resolve(module).resolve("pom.xml").toFile());
        String output = pom.getElementsByTagName("outputFile").item(0).getTextContent().trim();
        return module + "/" + output.replace("${project.build.directory}", "target");
    }

    static List<String> entrypoint(List<Instruction> file) {
        Instruction entrypoint = file.stream().filter(i -> i.keyword.equals("ENTRYPOINT")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no ENTRYPOINT"));
        JsonNode array = JsonMapper.builder().build().readTree(entrypoint.args);
        assertTrue(array.isArray(), "exec form, so signals reach the JVM: " + entrypoint.args);
        return Rendered.strings(array);
    }

    record Instruction(String keyword, String args) {
    }

    /** The default of a global ARG (declared before the first FROM). */
    static String arg(List<Instruction> file, String name) {
        for (Instruction i : file) {
            if (i.keyword.equals("FROM")) {
                break;
            }
            if (i.keyword.equals("ARG") && i.args.startsWith(name + "=")) {
                return i.args.substring(name.length() + 1);
            }
        }
        throw new AssertionError("no global ARG " + name + " with a default");
    }

    /** The instructions of the stage named {@code name}, its FROM first. */
    static List<Instruction> stage(List<Instruction> file, String name) {
        List<Instruction> out = new ArrayList<>();
        boolean in = false;
        for (Instruction i : file) {
            if (i.keyword.equals("FROM")) {
                in = i.args.endsWith(" AS " + name);
            }
            if (in) {
                out.add(i);
            }
        }
        assertFalse(out.isEmpty(), "no stage " + name);
        return out;
    }

    static List<Instruction> parse(String module) throws IOException {
        List<Instruction> out = new ArrayList<>();
        StringBuilder logical = new StringBuilder();
        for (String line : Files.readAllLines(ROOT.resolve("Dockerfile." + module))) {
            String trimmed = line.strip();
            if (logical.length() == 0 && (trimmed.isEmpty() || trimmed.startsWith("#"))) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                logical.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            logical.append(trimmed);
            Matcher m = Pattern.compile("^([A-Z]+)\\s+(.*)$", Pattern.DOTALL).matcher(logical.toString());
            if (!m.matches()) {
                throw new AssertionError("unparsable instruction: " + logical);
            }
            out.add(new Instruction(m.group(1), m.group(2).strip().replaceAll("\\s+", " ")));
            logical.setLength(0);
        }
        return out;
    }
}
