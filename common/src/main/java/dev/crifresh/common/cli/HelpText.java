package dev.crifresh.common.cli;

import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;

/**
 * picocli's help, wrapped at spaces only. picocli wraps a long help line with the JDK's line {@code BreakIterator},
 * which also breaks after {@code .}, {@code ,}, {@code :}, {@code ;}, {@code ?} and before {@code (} inside a word
 * (it only guards {@code -} itself) — so {@code crifresh-sim.jar} came out as {@code crifresh-sim.} / {@code jar}
 * and a copied command or file name no longer worked. Here every ASCII punctuation character of the wrapped text
 * is swapped, before wrapping, for a private-use stand-in of the same width that is never a break opportunity,
 * and swapped back in every rendered help section.
 */
public final class HelpText {
    private static final char BASE = '\uE000';

    private HelpText() {
    }

    /** Installs the space-only wrapping on {@code root} and every subcommand it has now. */
    public static CommandLine install(CommandLine root) {
        root.setHelpFactory(Unbroken::new);
        restoreSections(root);
        return root;
    }

    private static void restoreSections(CommandLine cmd) {
        Map<String, CommandLine.IHelpSectionRenderer> sections = cmd.getHelpSectionMap();
        sections.replaceAll((key, renderer) -> help -> restore(renderer.render(help)));
        cmd.setHelpSectionMap(sections);
        cmd.getSubcommands().values().forEach(HelpText::restoreSections);
    }

    /** Punctuation inside the text replaced by stand-ins; spaces (the only break points left) untouched. */
    static String protect(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(c < 128 && c > ' ' && !Character.isLetterOrDigit(c) ? (char) (BASE + c) : c);
        }
        return sb.toString();
    }

    static String restore(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(c >= BASE && c < BASE + 128 ? (char) (c - BASE) : c);
        }
        return sb.toString();
    }

    private static String[] protect(String[] lines) {
        String[] out = new String[lines.length];
        for (int i = 0; i < lines.length; i++) {
            out[i] = protect(lines[i]);
        }
        return out;
    }

    /** Help whose wrapped texts (descriptions, header, footer, option and parameter descriptions) are protected. */
    private static final class Unbroken extends Help {
        Unbroken(CommandSpec spec, ColorScheme scheme) {
            super(spec, scheme);
        }

        private String join(String[] lines, Object... params) {
            var usage = commandSpec().usageMessage();
            return Help.join(colorScheme().ansi(), usage.width(), usage.adjustLineBreaksForWideCJKCharacters(), protect(lines),
                    new StringBuilder(), params).toString();
        }

        @Override
        public String description(Object... params) {
            return join(commandSpec().usageMessage().description(), params);
        }

        @Override
        public String header(Object... params) {
            return join(commandSpec().usageMessage().header(), params);
        }

        @Override
        public String footer(Object... params) {
            return join(commandSpec().usageMessage().footer(), params);
        }

        @Override
        public IOptionRenderer createDefaultOptionRenderer() {
            IOptionRenderer plain = super.createDefaultOptionRenderer();
            return (option, labels, scheme) -> protectLastColumn(plain.render(option, labels, scheme), scheme);
        }

        @Override
        public IParameterRenderer createDefaultParameterRenderer() {
            IParameterRenderer plain = super.createDefaultParameterRenderer();
            return (param, labels, scheme) -> protectLastColumn(plain.render(param, labels, scheme), scheme);
        }

        /** As picocli lists subcommands (name, then the first line of the header or description), protected. */
        @Override
        public String commandList(Map<String, Help> subcommands) {
            if (subcommands.isEmpty()) {
                return "";
            }
            var usage = commandSpec().usageMessage();
            int names = subcommands.values().stream().mapToInt(h -> h.commandNamesText(", ").plainString().length()).max().orElse(0);
            TextTable table = TextTable.forColumns(colorScheme(), new Column(names + 2, 2, Column.Overflow.SPAN),
                    new Column(usage.width() - (names + 2), 2, Column.Overflow.WRAP));
            table.setAdjustLineBreaksForWideCJKCharacters(usage.adjustLineBreaksForWideCJKCharacters());
            for (Map.Entry<String, Help> e : subcommands.entrySet()) {
                var sub = e.getValue().commandSpec().usageMessage();
                String first = sub.header().length > 0 ? sub.header()[0] : sub.description().length > 0 ? sub.description()[0] : "";
                table.addRowValues(e.getValue().commandNamesText(", "), colorScheme().text(protect(first)));
            }
            return table.toString();
        }

        /** The description column: the only one picocli wraps with the break iterator. */
        private static Text[][] protectLastColumn(Text[][] rows, ColorScheme scheme) {
            for (Text[] row : rows) {
                int last = row.length - 1;
                if (last >= 0 && row[last] != null) {
                    row[last] = scheme.text(protect(row[last].plainString()));
                }
            }
            return rows;
        }
    }
}
