package dev.crifresh.agent.host;

/**
 * The text of one watched TOML file, kept in memory only long enough to read registry credentials
 * from it. toString never shows the text: it holds credentials.
 */
public record ConfigDocument(String path, String text) {
    @Override
    public String toString() {
        return "ConfigDocument[path=" + path + ", " + text.length() + " chars]";
    }
}
