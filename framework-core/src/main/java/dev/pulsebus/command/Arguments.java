package dev.pulsebus.command;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits the argument part of a message: whitespace separates words, double quotes group them, and a
 * backslash escapes a quote or a backslash inside quotes. Done lazily, on the first argument access.
 */
final class Arguments {

    private Arguments() {
    }

    /**
     * @throws CommandArgumentException (message key {@code arg.quote}) for an unterminated quote
     */
    static List<String> split(String text, int from, Messages messages) {
        List<String> out = new ArrayList<>();
        int n = text.length();
        int i = from;
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            StringBuilder word = new StringBuilder();
            boolean quoted = false;
            while (i < n) {
                c = text.charAt(i);
                if (quoted) {
                    if (c == '\\' && i + 1 < n && (text.charAt(i + 1) == '"' || text.charAt(i + 1) == '\\')) {
                        word.append(text.charAt(i + 1));
                        i += 2;
                        continue;
                    }
                    if (c == '"') {
                        quoted = false;
                    } else {
                        word.append(c);
                    }
                } else if (c == '"') {
                    quoted = true;
                } else if (Character.isWhitespace(c)) {
                    break;
                } else {
                    word.append(c);
                }
                i++;
            }
            if (quoted) {
                throw new CommandArgumentException(messages.format("arg.quote"));
            }
            out.add(word.toString());
        }
        return out;
    }

    static int skipSpaces(String text, int i) {
        int n = text.length();
        while (i < n && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    static int wordEnd(String text, int i) {
        int n = text.length();
        while (i < n && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
