package dev.crifresh.common.attest;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** RFC 7468 PEM blocks: writing with 64-column lines, reading strictly (text between blocks is ignored). */
final class Pem {
    record Block(String label, byte[] der) {
    }

    private static final Pattern BOUNDARY = Pattern.compile("-----(BEGIN|END) ([A-Z0-9 ]*)-----");
    private static final Base64.Encoder ENCODER = Base64.getMimeEncoder(64, new byte[] {'\n'});

    private Pem() {
    }

    static String write(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n" + ENCODER.encodeToString(der) + "\n-----END " + label + "-----\n";
    }

    static List<Block> read(String text) throws KeyFormatException {
        if (text == null || text.isBlank()) {
            throw new KeyFormatException("the PEM text is empty");
        }
        List<Block> blocks = new ArrayList<>();
        Matcher m = BOUNDARY.matcher(text);
        while (m.find()) {
            String label = m.group(2);
            if (!m.group(1).equals("BEGIN")) {
                throw new KeyFormatException("PEM has an END " + label + " line without a BEGIN line");
            }
            int bodyStart = m.end();
            if (!m.find()) {
                throw new KeyFormatException("PEM block " + label + " has no END line");
            }
            if (!m.group(1).equals("END") || !m.group(2).equals(label)) {
                throw new KeyFormatException("PEM block " + label + " is followed by " + m.group(1) + " " + m.group(2)
                        + " instead of END " + label);
            }
            String body = text.substring(bodyStart, m.start()).replaceAll("[ \\t\\r\\n]", "");
            if (body.isEmpty()) {
                throw new KeyFormatException("PEM block " + label + " is empty");
            }
            try {
                blocks.add(new Block(label, Base64.getDecoder().decode(body)));
            } catch (IllegalArgumentException e) {
                throw new KeyFormatException("PEM block " + label + " is not valid base64");
            }
        }
        if (blocks.isEmpty()) {
            throw new KeyFormatException("no PEM block (-----BEGIN ...-----) found");
        }
        return blocks;
    }

    /** The DER of the one block with this label; errors name the expected and the found labels. */
    static byte[] single(List<Block> blocks, String label) throws KeyFormatException {
        byte[] found = null;
        for (Block block : blocks) {
            if (block.label().equals(label)) {
                if (found != null) {
                    throw new KeyFormatException("PEM holds more than one " + label + " block");
                }
                found = block.der();
            }
        }
        if (found == null) {
            throw new KeyFormatException("PEM has no " + label + " block (found: " + labels(blocks) + ")");
        }
        return found;
    }

    static void onlyLabels(List<Block> blocks, List<String> allowed) throws KeyFormatException {
        for (Block block : blocks) {
            if (!allowed.contains(block.label())) {
                throw new KeyFormatException("unexpected PEM block " + block.label() + " (expected "
                        + String.join(" and ", allowed) + ")");
            }
        }
    }

    private static String labels(List<Block> blocks) {
        List<String> labels = new ArrayList<>();
        for (Block block : blocks) {
            labels.add(block.label());
        }
        return String.join(", ", labels);
    }
}
