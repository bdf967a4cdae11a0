package dev.crifresh.agent.host;

import java.util.ArrayList;
import java.util.List;

/**
 * Go's {@code path/filepath.Match} for one path component, the matcher containerd's import globs use:
 * {@code *} any run of characters, {@code ?} one character, {@code [abc]}, {@code [a-z]}, {@code [^a-z]}
 * a class, {@code \} escapes the next character; none of them matches {@code /}, and unlike a shell a
 * leading dot is matched by {@code *}. A pure function, safe to fuzz: a malformed pattern is an
 * {@link IllegalArgumentException} (Go's {@code ErrBadPattern}), nothing else is thrown; matching is
 * O(pattern × name) with no backtracking blow-up.
 */
public final class GoGlob {
    private GoGlob() {
    }

    /** Whether Go would treat the text as a pattern at all ({@code *?[\} present). */
    public static boolean hasMeta(String text) {
        for (int i = 0; i < text.length(); i++) {
            if ("*?[\\".indexOf(text.charAt(i)) >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * @throws IllegalArgumentException when the pattern is malformed (Go refuses it, so containerd would
     *                                  fail to start with it)
     */
    public static boolean matches(String pattern, String name) {
        List<Token> tokens = compile(pattern);
        int[] codepoints = name.codePoints().toArray();
        // Two pointers, remembering the last star: the classic linear wildcard match.
        int t = 0;
        int n = 0;
        int starT = -1;
        int starN = 0;
        while (n < codepoints.length) {
            if (t < tokens.size() && tokens.get(t).kind == Kind.STAR) {
                starT = t++;
                starN = n;
            } else if (t < tokens.size() && tokens.get(t).accepts(codepoints[n])) {
                t++;
                n++;
            } else if (starT >= 0 && codepoints[starN] != '/') {
                t = starT + 1;
                n = ++starN;
            } else {
                return false;
            }
        }
        while (t < tokens.size() && tokens.get(t).kind == Kind.STAR) {
            t++;
        }
        return t == tokens.size();
    }

    private enum Kind { STAR, ANY, LITERAL, CLASS }

    private record Range(int lo, int hi) {
    }

    private record Token(Kind kind, int literal, boolean negated, List<Range> ranges) {
        boolean accepts(int c) {
            if (c == '/') {
                return false;
            }
            return switch (kind) {
                case STAR -> false;
                case ANY -> true;
                case LITERAL -> c == literal;
                case CLASS -> {
                    boolean in = false;
                    for (Range r : ranges) {
                        in |= r.lo <= c && c <= r.hi;
                    }
                    yield in != negated;
                }
            };
        }
    }

    private static List<Token> compile(String pattern) {
        int[] p = pattern.codePoints().toArray();
        List<Token> out = new ArrayList<>();
        int i = 0;
        while (i < p.length) {
            int c = p[i];
            if (c == '*') {
                if (out.isEmpty() || out.get(out.size() - 1).kind != Kind.STAR) {
                    out.add(new Token(Kind.STAR, 0, false, List.of()));
                }
                i++;
            } else if (c == '?') {
                out.add(new Token(Kind.ANY, 0, false, List.of()));
                i++;
            } else if (c == '\\') {
                if (i + 1 >= p.length) {
                    throw bad(pattern);
                }
                out.add(new Token(Kind.LITERAL, p[i + 1], false, List.of()));
                i += 2;
            } else if (c == '[') {
                i++;
                boolean negated = i < p.length && p[i] == '^';
                if (negated) {
                    i++;
                }
                List<Range> ranges = new ArrayList<>();
                boolean first = true;
                while (true) {
                    if (i >= p.length) {
                        throw bad(pattern);
                    }
                    if (p[i] == ']' && !first) {
                        i++;
                        break;
                    }
                    int[] lo = classChar(p, i, pattern);
                    i = lo[1];
                    int hi = lo[0];
                    if (i < p.length && p[i] == '-') {
                        int[] h = classChar(p, i + 1, pattern);
                        hi = h[0];
                        i = h[1];
                        if (hi < lo[0]) {
                            throw bad(pattern);
                        }
                    }
                    ranges.add(new Range(lo[0], hi));
                    first = false;
                }
                out.add(new Token(Kind.CLASS, 0, negated, List.copyOf(ranges)));
            } else {
                out.add(new Token(Kind.LITERAL, c, false, List.of()));
                i++;
            }
        }
        return out;
    }

    /** One class character at {@code i}: {value, next index}; {@code - ]} must be escaped, as in Go. */
    private static int[] classChar(int[] p, int i, String pattern) {
        if (i >= p.length || p[i] == '-' || p[i] == ']') {
            throw bad(pattern);
        }
        if (p[i] == '\\') {
            if (i + 1 >= p.length) {
                throw bad(pattern);
            }
            return new int[] {p[i + 1], i + 2};
        }
        return new int[] {p[i], i + 1};
    }

    private static IllegalArgumentException bad(String pattern) {
        return new IllegalArgumentException("syntax error in pattern " + pattern);
    }
}
