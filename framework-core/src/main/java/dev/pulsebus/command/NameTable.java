package dev.pulsebus.command;

import java.util.Map;

/**
 * An immutable open-addressing table from command names to values, looked up by a region of the
 * message text, so that finding (or not finding) the first word allocates nothing: no substring, no
 * boxing. Keys are stored folded when the table is case-insensitive, and the region is folded as it is
 * hashed and compared.
 */
final class NameTable<V> {

    private final String[] keys;
    private final Object[] values;
    private final int mask;
    private final boolean fold;

    NameTable(Map<String, V> entries, boolean fold) {
        this.fold = fold;
        int size = Integer.highestOneBit(Math.max(8, entries.size() * 2 - 1)) << 1;
        this.keys = new String[size];
        this.values = new Object[size];
        this.mask = size - 1;
        for (Map.Entry<String, V> entry : entries.entrySet()) {
            String k = entry.getKey();
            String key = fold ? fold(k) : k;
            int i = hash(key, 0, key.length()) & mask;
            while (keys[i] != null) {
                if (keys[i].equals(key)) {
                    throw new IllegalArgumentException("duplicate name '" + k + "'");
                }
                i = (i + 1) & mask;
            }
            keys[i] = key;
            values[i] = entry.getValue();
        }
    }

    /** The value named by {@code text[from, to)}, or {@code null}. */
    @SuppressWarnings("unchecked")
    V get(String text, int from, int to) {
        int len = to - from;
        for (int i = hash(text, from, to) & mask; ; i = (i + 1) & mask) {
            String k = keys[i];
            if (k == null) {
                return null;
            }
            if (k.length() == len && regionEquals(k, text, from)) {
                return (V) values[i];
            }
        }
    }

    private int hash(String s, int from, int to) {
        int h = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            h = 31 * h + (fold ? fold(c) : c);
        }
        return h ^ (h >>> 16);
    }

    private boolean regionEquals(String key, String text, int from) {
        for (int i = 0; i < key.length(); i++) {
            char c = text.charAt(from + i);
            if (key.charAt(i) != (fold ? fold(c) : c)) {
                return false;
            }
        }
        return true;
    }

    static char fold(char c) {
        if (c < 128) {
            return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
        }
        return Character.toLowerCase(c);
    }

    static String fold(String s) {
        char[] out = new char[s.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = fold(s.charAt(i));
        }
        return new String(out);
    }
}
