package dev.pulsebus.command;

import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The command prefixes, compiled so that a message is rejected on its first character: an ASCII first
 * character is one array read; a non-ASCII one (such as {@code 。}) is compared with the few non-ASCII
 * first characters. Only then are whole prefixes compared, longest first.
 */
final class PrefixSet {

    /** Longer prefixes first; of the same length, in the order given (the sort is stable). */
    private static final Comparator<String> LONGEST_FIRST = new Comparator<>() {
        @Override
        public int compare(String a, String b) {
            return Integer.compare(b.length(), a.length());
        }
    };

    private final boolean[] asciiFirst = new boolean[128];
    private final char[] otherFirst;
    private final String[] longestFirst;

    PrefixSet(List<String> prefixes) {
        if (prefixes.isEmpty()) {
            throw new IllegalArgumentException("at least one command prefix is needed");
        }
        StringBuilder other = new StringBuilder();
        for (String p : prefixes) {
            if (!Arguments.isOneWord(p)) {
                throw new IllegalArgumentException("a command prefix must be non-empty, without spaces: '" + p + "'");
            }
            char c = p.charAt(0);
            if (c < 128) {
                asciiFirst[c] = true;
            } else if (other.indexOf(String.valueOf(c)) < 0) {
                other.append(c);
            }
        }
        this.otherFirst = other.toString().toCharArray();
        String[] distinct = new LinkedHashSet<>(prefixes).toArray(new String[0]);
        Arrays.sort(distinct, LONGEST_FIRST);
        this.longestFirst = distinct;
    }

    /** The index just past the prefix that {@code text} has at {@code at}, or -1 when it has none. */
    int match(String text, int at) {
        char c = text.charAt(at);
        if (c < 128) {
            if (!asciiFirst[c]) {
                return -1;
            }
        } else if (!contains(otherFirst, c)) {
            return -1;
        }
        for (String p : longestFirst) {
            if (text.startsWith(p, at)) {
                return at + p.length();
            }
        }
        return -1;
    }

    private static boolean contains(char[] chars, char c) {
        for (char x : chars) {
            if (x == c) {
                return true;
            }
        }
        return false;
    }
}
