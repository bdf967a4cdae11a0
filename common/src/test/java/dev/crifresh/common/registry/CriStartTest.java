package dev.crifresh.common.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crifresh.common.registry.ContainerdReading.Generation;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Config shapes on which containerd's CRI image service fails to start (containerd then serves without it and every
 * pull fails): the reading says so per generation ({@link ContainerdReading.Read#criFails()}), and where generations
 * differ "some 2.x" doubts.
 */
class CriStartTest {
    private static final String IMAGES = "plugins.'io.containerd.cri.v1.images'";
    private static final String GRPC = "plugins.'io.containerd.grpc.v1.cri'";
    private static final String CRED = "[" + IMAGES + ".registry.configs.'ghcr.io'.auth]\nusername = 'u'\npassword = 'p'\n";

    private static List<ContainerdReading.Document> docs(String... texts) {
        List<ContainerdReading.Document> out = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            out.add(new ContainerdReading.Document("/etc/f" + i + ".toml", assertInstanceOf(
                    ContainerdConfigFile.Parsed.class, ContainerdConfigFile.parse(texts[i]))));
        }
        return out;
    }

    /** @param fails21 whether 2.1/2.2 fail, {@code fails23} 2.3, {@code fails1} 1.x (null: 1.x in doubt) */
    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of("mirrors beside config_path, one file", List.of("version = 3\n" + CRED + "[" + IMAGES
                        + ".registry]\nconfig_path = '/etc/h'\n[" + IMAGES + ".registry.mirrors.'docker.io']\n"
                        + "endpoint = ['https://m']\n"), true, true),
                Arguments.of("mirrors in one file, config_path in a later one (merged)", List.of("version = 3\n"
                        + "[" + IMAGES + ".registry.mirrors.'docker.io']\nendpoint = ['https://m']\n",
                        "version = 3\n[" + IMAGES + ".registry]\nconfig_path = '/etc/h'\n" + CRED), true, true),
                Arguments.of("mirrors without config_path", List.of("version = 3\n" + CRED + "[" + IMAGES
                        + ".registry.mirrors.'docker.io']\nendpoint = ['https://m']\n"), false, false),
                Arguments.of("mirrors beside an empty config_path", List.of("version = 3\n" + CRED + "[" + IMAGES
                        + ".registry]\nconfig_path = ''\n[" + IMAGES + ".registry.mirrors.'docker.io']\n"
                        + "endpoint = ['https://m']\n"), false, false),
                Arguments.of("image_pull_progress_timeout = 'bogus'", List.of("version = 3\n" + CRED + "[" + IMAGES
                        + "]\nimage_pull_progress_timeout = 'bogus'\n"), true, true),
                Arguments.of("image_pull_progress_timeout = '5 m' (a space)", List.of("version = 3\n" + CRED + "["
                        + IMAGES + "]\nimage_pull_progress_timeout = '5 m'\n"), true, true),
                Arguments.of("image_pull_progress_timeout = '1m30s'", List.of("version = 3\n" + CRED + "[" + IMAGES
                        + "]\nimage_pull_progress_timeout = '1m30s'\n"), false, false),
                Arguments.of("a bogus timeout in a version 3 file's legacy table: only 2.3 migrates it",
                        List.of("version = 3\n" + CRED + "[" + GRPC + "]\nimage_pull_progress_timeout = 'bogus'\n"),
                        false, true),
                Arguments.of("a bogus timeout in the legacy table of a version 2 file: every 2.x migrates it",
                        List.of("version = 2\n[" + GRPC + "]\nimage_pull_progress_timeout = 'bogus'\n"), true, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void theCriImageServiceFailsToStart(String name, List<String> texts, boolean fails21, boolean fails23) {
        List<ContainerdReading.Document> d = docs(texts.toArray(String[]::new));
        for (Generation g : List.of(Generation.V2_1, Generation.V2_2, Generation.V2_3)) {
            ContainerdReading.Read read = assertInstanceOf(ContainerdReading.Read.class, ContainerdReading.read(d, g),
                    name + " " + g);
            boolean fails = g == Generation.V2_3 ? fails23 : fails21;
            assertEquals(fails, !read.criFails().isEmpty(), name + " " + g + ": " + read.criFails());
            read.criFails().forEach(why -> assertTrue(!why.contains("'p'") && !why.contains("bogus"), why));
        }
        ContainerdReading.Result two = ContainerdReading.read(d, Generation.TWO);
        if (fails21 != fails23) {
            assertInstanceOf(ContainerdReading.Failed.class, two, name);
        } else {
            assertEquals(fails21, !assertInstanceOf(ContainerdReading.Read.class, two, name).criFails().isEmpty(), name);
        }
    }

    @Test
    void containerd1RefusesMirrorsOrTlsBesideConfigPathAndDoubtsABadTimeout() {
        String mirrors = "version = 2\n[" + GRPC + ".registry]\nconfig_path = '/etc/h'\n[" + GRPC
                + ".registry.mirrors.'docker.io']\nendpoint = ['https://m']\n";
        String tls = "version = 2\n[" + GRPC + ".registry]\nconfig_path = '/etc/h'\n[" + GRPC
                + ".registry.configs.'ghcr.io'.tls]\ninsecure_skip_verify = true\n";
        for (String text : List.of(mirrors, tls)) {
            ContainerdReading.Read read = assertInstanceOf(ContainerdReading.Read.class,
                    ContainerdReading.read(docs(text), Generation.ONE));
            assertEquals(1, read.criFails().size(), text);
        }
        // 2.x has no configs.tls field: it starts.
        assertEquals(List.of(), assertInstanceOf(ContainerdReading.Read.class,
                ContainerdReading.read(docs(tls.replace("version = 2", "version = 3").replace(GRPC, IMAGES)),
                        Generation.V2_2)).criFails());
        // 1.7 fails on a bad timeout, 1.6 has no such setting: a doubt.
        assertInstanceOf(ContainerdReading.Failed.class, ContainerdReading.read(docs("version = 2\n[" + GRPC
                + "]\nimage_pull_progress_timeout = 'bogus'\n"), Generation.ONE));
    }

    @Test
    void aTimeoutThatIsNotAStringIsADoubt() {
        assertInstanceOf(ContainerdConfigFile.Failed.class, ContainerdConfigFile.parse("version = 3\n[" + IMAGES
                + "]\nimage_pull_progress_timeout = 5\n"));
    }

    @Test
    void goDurations() {
        for (String ok : List.of("0", "-0", "1s", "1.5h", ".5s", "5.s", "1h2m3s4ms5us6\u00b5s7\u03bcs8ns", "+3m",
                "-1m", "100000h")) {
            assertEquals(GoDuration.Verdict.VALID, GoDuration.parse(ok), ok);
        }
        for (String bad : List.of("", "bogus", "5", "1 s", " 1s", "1s ", "1S", "1d", ".s", "1.2.3s", "--1s", "0x1s",
                "1e3s", "\uff11s")) {
            assertEquals(GoDuration.Verdict.INVALID, GoDuration.parse(bad), bad);
        }
        assertEquals(GoDuration.Verdict.UNSURE, GoDuration.parse("2562047h"));
        assertEquals(GoDuration.Verdict.UNSURE, GoDuration.parse("99999999999999999999h"));
    }
}
