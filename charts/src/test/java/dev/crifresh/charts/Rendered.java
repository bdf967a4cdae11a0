package dev.crifresh.charts;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** The objects of one render, parsed from Helm's multi-document YAML. */
final class Rendered {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    final String text;
    final List<JsonNode> objects;

    Rendered(String text) {
        this.text = text;
        List<JsonNode> parsed = new ArrayList<>();
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(text)) {
            while (documents.hasNext()) {
                JsonNode document = documents.next();
                if (document != null && document.isObject() && document.has("kind")) {
                    parsed.add(document);
                }
            }
        }
        this.objects = List.copyOf(parsed);
    }

    List<JsonNode> all(String kind) {
        return objects.stream().filter(o -> kind.equals(o.path("kind").asString())).collect(Collectors.toList());
    }

    /** The single object of this kind whose name is the given one. */
    JsonNode one(String kind, String name) {
        List<JsonNode> matches = all(kind).stream()
                .filter(o -> name.equals(o.path("metadata").path("name").asString()))
                .collect(Collectors.toList());
        if (matches.size() != 1) {
            throw new AssertionError("expected one " + kind + " named " + name + ", found " + matches.size()
                    + " among " + summary());
        }
        return matches.get(0);
    }

    /** The single object of this kind. */
    JsonNode one(String kind) {
        List<JsonNode> matches = all(kind);
        if (matches.size() != 1) {
            throw new AssertionError("expected one " + kind + ", found " + matches.size() + " among " + summary());
        }
        return matches.get(0);
    }

    List<String> summary() {
        return objects.stream()
                .map(o -> o.path("kind").asString() + "/" + o.path("metadata").path("name").asString())
                .collect(Collectors.toList());
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode element : array.values()) {
            out.add(element.asString());
        }
        return out;
    }
}
