package dev.crifresh.charts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** The repository's Markdown docs, read the way a reader copies from them: sections and their fenced blocks. */
final class Docs {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Pattern FENCE = Pattern.compile("(?ms)^```(\\w*)[^\\n]*\\n(.*?)^```\\s*$");

    private Docs() {
    }

    static String text(String path) {
        try {
            return Files.readString(ROOT.resolve(path), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The text under the heading {@code heading} (e.g. "## Install with Flux") up to the next heading of its level or above. */
    static String section(String path, String heading) {
        String text = text(path);
        int start = text.indexOf("\n" + heading + "\n");
        if (start < 0) {
            throw new AssertionError(path + " has no section '" + heading + "'");
        }
        int level = heading.indexOf(' ');
        Matcher next = Pattern.compile("(?m)^#{1," + level + "} ").matcher(text);
        int end = next.find(start + heading.length() + 2) ? next.start() : text.length();
        return text.substring(start + 1, end);
    }

    /** The fenced blocks of a language ("yaml", "sh") in {@code markdown}, in order. */
    static List<String> fenced(String markdown, String language) {
        List<String> out = new ArrayList<>();
        Matcher m = FENCE.matcher(markdown);
        while (m.find()) {
            if (m.group(1).equals(language)) {
                out.add(m.group(2));
            }
        }
        return out;
    }

    /** Every YAML document of the yaml blocks in {@code markdown}. */
    static List<JsonNode> yamlDocuments(String markdown) {
        List<JsonNode> out = new ArrayList<>();
        for (String block : fenced(markdown, "yaml")) {
            try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(block)) {
                while (documents.hasNext()) {
                    JsonNode document = documents.next();
                    if (document != null && !document.isNull()) {
                        out.add(document);
                    }
                }
            }
        }
        return out;
    }
}
