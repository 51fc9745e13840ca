package dev.pulsebus.irc;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the bot says, as IRC lines: each line of the text (CR LF, CR or LF end one) cut into pieces of at most
 * a byte budget in UTF-8, at the last space that fits when there is one (the space dropped), else between two
 * characters (never inside one, a surrogate pair included). NUL and CTCP's {@code \u0001} are taken out (they
 * would end the line or make it a CTCP request); empty lines are passed over (IRC has no empty message).
 */
final class IrcText {

    /**
     * The most bytes a server adds in front of what a client sends when it relays it:
     * {@code :nick!user@host } with a user name of 10 and a host of 63 bytes (RFC 1035's label), besides the nick.
     */
    static final int PREFIX_RESERVE = 1 + 1 + 10 + 1 + 63 + 1;
    /** RFC 1459's line limit, CR LF included. */
    static final int LINE_LIMIT = 512;
    /** The least text a line carries, however long the target (so a line always moves on). */
    static final int MIN_BUDGET = 64;

    private IrcText() {
    }

    /**
     * The bytes of text a {@code command} ({@code PRIVMSG}) line to {@code target} may carry so that, relayed
     * with the prefix of {@code nick}, it stays within 512 bytes: {@code 512 - CR LF - "PRIVMSG #chan :" -
     * ":nick!user@host "}. About 400-420 for a short channel name and nick.
     */
    static int budget(String command, String target, String nick) {
        int fixed = 2 + utf8(command) + 1 + utf8(target) + 2 + utf8(nick) + PREFIX_RESERVE;
        return Math.max(MIN_BUDGET, LINE_LIMIT - fixed);
    }

    /** {@code text} as lines of at most {@code budget} UTF-8 bytes each, in order. */
    static List<String> split(String text, int budget) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\r\n|\r|\n", -1)) {
            String clean = line.indexOf('\0') < 0 && line.indexOf('\u0001') < 0 ? line
                    : line.replace("\0", "").replace("\u0001", "");
            cut(clean, budget, out);
        }
        return out;
    }

    private static void cut(String line, int budget, List<String> out) {
        int start = 0;
        int n = line.length();
        while (start < n) {
            int bytes = 0;
            int i = start;
            int lastSpace = -1;
            while (i < n) {
                int cp = line.codePointAt(i);
                int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (bytes + len > budget) {
                    break;
                }
                if (cp == ' ') {
                    lastSpace = i;
                }
                bytes += len;
                i += Character.charCount(cp);
            }
            if (i >= n) {
                add(line.substring(start), out);
                return;
            }
            if (line.charAt(i) == ' ') { // the piece fits whole, up to a space
                add(line.substring(start, i), out);
                start = i + 1;
            } else if (lastSpace > start) {
                add(line.substring(start, lastSpace), out);
                start = lastSpace + 1;
            } else {
                add(line.substring(start, i), out);
                start = i;
            }
        }
    }

    private static void add(String piece, List<String> out) {
        if (!piece.isEmpty()) {
            out.add(piece);
        }
    }

    static int utf8(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** {@code s} in UTF-8. */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
