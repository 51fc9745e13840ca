package dev.pulsebus.command;

/**
 * Finds the words of a message's argument part: whitespace separates words, double quotes group them,
 * and a backslash escapes a quote or a backslash inside quotes. Words are kept as boundaries into the
 * text ({@code bounds[2i]}, {@code bounds[2i + 1]}), so a handler that reads a number parses it in place
 * and one that reads nothing pays for one small array; a word becomes a {@code String} when it is asked
 * for.
 */
final class Arguments {

    private static final int[] NONE = new int[0];

    private Arguments() {
    }

    /**
     * The boundaries of the words of {@code text} from {@code from} (a quoted word's include its quotes).
     *
     * @throws CommandArgumentException (message {@code arg.quote}) for a quote left open
     */
    static int[] scan(String text, int from, Messages messages) {
        int count = 0;
        for (int i = skipSpaces(text, from); i < text.length(); i = skipSpaces(text, end(text, i, messages))) {
            count++;
        }
        if (count == 0) {
            return NONE;
        }
        int[] bounds = new int[count * 2];
        int w = 0;
        for (int i = skipSpaces(text, from); i < text.length(); ) {
            int end = end(text, i, messages);
            bounds[w++] = i;
            bounds[w++] = end;
            i = skipSpaces(text, end);
        }
        return bounds;
    }

    /** The end of the word starting at {@code i}. */
    private static int end(String text, int i, Messages messages) {
        int n = text.length();
        boolean quoted = false;
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '\\' && i + 1 < n && isEscapable(text.charAt(i + 1))) {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (Character.isWhitespace(c)) {
                return i;
            }
        }
        if (quoted) {
            throw new CommandArgumentException(messages.format("arg.quote"));
        }
        return n;
    }

    /** Whether {@code text[start, end)} is a bare word, usable as it stands. */
    static boolean plain(String text, int start, int end) {
        for (int i = start; i < end; i++) {
            if (text.charAt(i) == '"') {
                return false;
            }
        }
        return true;
    }

    /** The word at {@code text[start, end)} with its quotes and escapes resolved. */
    static String word(String text, int start, int end) {
        if (plain(text, start, end)) {
            return text.substring(start, end);
        }
        StringBuilder sb = new StringBuilder(end - start);
        boolean quoted = false;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (quoted && c == '\\' && i + 1 < end && isEscapable(text.charAt(i + 1))) {
                sb.append(text.charAt(++i));
            } else if (c == '"') {
                quoted = !quoted;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static boolean isEscapable(char c) {
        return c == '"' || c == '\\';
    }

    static int skipSpaces(String text, int i) {
        int n = text.length();
        while (i < n && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Whether {@code s} is one word: not null, not empty, no whitespace. */
    static boolean isOneWord(String s) {
        return s != null && !s.isEmpty() && wordEnd(s, 0) == s.length();
    }

    static int wordEnd(String text, int i) {
        int n = text.length();
        while (i < n && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
