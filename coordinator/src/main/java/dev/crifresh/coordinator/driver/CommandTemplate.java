package dev.crifresh.coordinator.driver;

import java.util.ArrayList;
import java.util.List;

/**
 * A reboot command such as {@code ssh admin@{ip} sudo reboot}: split into words like a shell would
 * (whitespace, single and double quotes, backslash) but never run by a shell; {@code {node}} and
 * {@code {ip}} are substituted inside each word after splitting, so a value can never add arguments.
 */
public final class CommandTemplate {
    private final List<String> words;

    private CommandTemplate(List<String> words) {
        this.words = List.copyOf(words);
    }

    /** @throws IllegalArgumentException naming the problem (empty, unbalanced quote) */
    public static CommandTemplate parse(String template) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("--reboot-command is empty");
        }
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"' && i + 1 < template.length()) {
                    word.append(template.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == '\\' && i + 1 < template.length()) {
                word.append(template.charAt(++i));
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("--reboot-command has an unbalanced " + quote + " quote");
        }
        if (inWord) {
            words.add(word.toString());
        }
        return new CommandTemplate(words);
    }

    public boolean usesIp() {
        return words.stream().anyMatch(w -> w.contains("{ip}"));
    }

    public List<String> argv(String node, String ip) {
        List<String> argv = new ArrayList<>(words.size());
        for (String w : words) {
            argv.add(w.replace("{node}", node).replace("{ip}", ip == null ? "" : ip));
        }
        return argv;
    }
}
