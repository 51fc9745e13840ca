package dev.pulsebus.module;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Orders module versions as Maven's {@code ComparableVersion} does in the common cases: the text splits into
 * numbers and words at {@code .}, {@code -}, {@code _} and where digits meet letters; numbers compare as numbers
 * ({@code 1.10 > 1.9}), a number beats a word ({@code 1.0.1 > 1.0-rc1}), and words rank {@code alpha} (or
 * {@code a}) &lt; {@code beta} ({@code b}) &lt; {@code milestone} ({@code m}) &lt; {@code rc} ({@code cr}) &lt;
 * {@code snapshot} &lt; the release ({@code ""}, {@code ga}, {@code final}, {@code release}) &lt; {@code sp}
 * &lt; any other word (those by their text). A missing part counts as 0 or the release, so {@code 1 = 1.0 =
 * 1.0.0} and {@code 1.0-SNAPSHOT < 1.0}. Case does not matter. Maven's nesting of {@code -} parts is not
 * modelled.
 */
final class VersionOrder implements Comparator<String> {

    static final VersionOrder INSTANCE = new VersionOrder();

    private static final List<String> WORDS = List.of("alpha", "beta", "milestone", "rc", "snapshot", "", "sp");
    private static final int RELEASE = WORDS.indexOf("");

    private VersionOrder() {
    }

    @Override
    public int compare(String a, String b) {
        List<Object> x = parts(a);
        List<Object> y = parts(b);
        for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
            int c = comparePart(i < x.size() ? x.get(i) : null, i < y.size() ? y.get(i) : null);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** Numbers as {@link BigInteger}, words as their canonical text; {@code null} is a missing part. */
    private static int comparePart(@Nullable Object a, @Nullable Object b) {
        if (a == null) {
            return b == null ? 0 : -comparePart(b, null);
        }
        if (a instanceof BigInteger n) {
            if (b == null) {
                return n.signum();
            }
            return b instanceof BigInteger m ? n.compareTo(m) : 1;
        }
        String w = (String) a;
        if (b instanceof BigInteger) {
            return -1;
        }
        String v = b == null ? "" : (String) b;
        int ra = rank(w);
        int rb = rank(v);
        return ra != rb ? Integer.compare(ra, rb) : ra == WORDS.size() ? w.compareTo(v) : 0;
    }

    /** A word's place in {@link #WORDS}; any other word comes after them all. */
    private static int rank(String word) {
        int i = WORDS.indexOf(word);
        return i < 0 ? WORDS.size() : i;
    }

    private static List<Object> parts(String version) {
        List<Object> parts = new ArrayList<>();
        String s = version.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '.' || c == '-' || c == '_') {
                i++;
                continue;
            }
            int start = i;
            boolean digits = Character.isDigit(c);
            while (i < s.length() && s.charAt(i) != '.' && s.charAt(i) != '-' && s.charAt(i) != '_'
                    && Character.isDigit(s.charAt(i)) == digits) {
                i++;
            }
            String part = s.substring(start, i);
            boolean numberFollows = i < s.length() && Character.isDigit(s.charAt(i));
            if (!digits) { // 1.0.0-rc1 = 1-rc1
                trimNothing(parts);
            }
            parts.add(digits ? new BigInteger(part) : word(part, numberFollows));
        }
        trimNothing(parts); // 1.0.0 = 1, 1.0-ga = 1
        return parts;
    }

    private static void trimNothing(List<Object> parts) {
        while (!parts.isEmpty() && isNothing(parts.get(parts.size() - 1))) {
            parts.remove(parts.size() - 1);
        }
    }

    private static boolean isNothing(Object part) {
        return part instanceof BigInteger n ? n.signum() == 0 : rank((String) part) == RELEASE;
    }

    private static String word(String w, boolean numberFollows) {
        return switch (w) {
            case "a" -> numberFollows ? "alpha" : w;
            case "b" -> numberFollows ? "beta" : w;
            case "m" -> numberFollows ? "milestone" : w;
            case "cr" -> "rc";
            case "ga", "final", "release" -> "";
            default -> w;
        };
    }
}
