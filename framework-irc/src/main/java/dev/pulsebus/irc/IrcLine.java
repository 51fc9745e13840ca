package dev.pulsebus.irc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line a server sent (RFC 1459, 2.3.1; RFC 2812, 2.3.1), IRCv3 message tags tolerated and read:
 * {@code [@tags] [:prefix] command params... [:trailing]}. Immutable.
 *
 * @param tags    the IRCv3 tags, values unescaped ({@code time}, {@code msgid}); empty without
 * @param prefix  the source ({@code nick!user@host} or a server name); empty without
 * @param command the command or three-digit numeric, upper case as sent
 * @param params  the parameters, the trailing one last
 */
record IrcLine(Map<String, String> tags, String prefix, String command, List<String> params) {

    IrcLine {
        tags = Map.copyOf(tags);
        params = List.copyOf(params);
    }

    /**
     * {@code line} (without its CR LF) read, or null when it has no command (an empty or broken line: passed
     * over).
     */
    static @org.jspecify.annotations.Nullable IrcLine parse(String line) {
        int at = 0;
        int n = line.length();
        Map<String, String> tags = Map.of();
        if (at < n && line.charAt(at) == '@') {
            int end = line.indexOf(' ', at);
            if (end < 0) {
                return null;
            }
            tags = tags(line.substring(at + 1, end));
            at = skipSpaces(line, end);
        }
        String prefix = "";
        if (at < n && line.charAt(at) == ':') {
            int end = line.indexOf(' ', at);
            if (end < 0) {
                return null;
            }
            prefix = line.substring(at + 1, end);
            at = skipSpaces(line, end);
        }
        int end = line.indexOf(' ', at);
        String command = line.substring(at, end < 0 ? n : end);
        if (command.isEmpty()) {
            return null;
        }
        List<String> params = new ArrayList<>(4);
        at = end < 0 ? n : skipSpaces(line, end);
        while (at < n) {
            if (line.charAt(at) == ':') {
                params.add(line.substring(at + 1));
                break;
            }
            end = line.indexOf(' ', at);
            params.add(line.substring(at, end < 0 ? n : end));
            at = end < 0 ? n : skipSpaces(line, end);
        }
        return new IrcLine(tags, prefix, command, params);
    }

    /** The nick of the prefix ({@code nick} of {@code nick!user@host}); the whole prefix when it has none. */
    String nick() {
        int end = prefix.length();
        int bang = prefix.indexOf('!');
        int at = prefix.indexOf('@');
        if (bang >= 0) {
            end = bang;
        } else if (at >= 0) {
            end = at;
        }
        return prefix.substring(0, end);
    }

    /** Whether the prefix is a user's ({@code nick!user@host}), not a server's. */
    boolean fromUser() {
        return prefix.indexOf('!') > 0 || prefix.indexOf('@') > 0 || (!prefix.isEmpty() && prefix.indexOf('.') < 0);
    }

    /** Parameter {@code i}, or empty when there are fewer. */
    String param(int i) {
        return i < params.size() ? params.get(i) : "";
    }

    /** The last parameter (the trailing one), or empty. */
    String last() {
        return params.isEmpty() ? "" : params.get(params.size() - 1);
    }

    private static int skipSpaces(String line, int at) {
        while (at < line.length() && line.charAt(at) == ' ') {
            at++;
        }
        return at;
    }

    /** IRCv3 message tags: {@code key=value;key2}, values unescaped ({@code \:} is {@code ;}, {@code \s} a space). */
    private static Map<String, String> tags(String text) {
        Map<String, String> tags = new LinkedHashMap<>();
        for (String t : text.split(";", -1)) {
            if (t.isEmpty()) {
                continue;
            }
            int eq = t.indexOf('=');
            tags.put(eq < 0 ? t : t.substring(0, eq), eq < 0 ? "" : unescape(t.substring(eq + 1)));
        }
        return tags;
    }

    private static String unescape(String v) {
        if (v.indexOf('\\') < 0) {
            return v;
        }
        StringBuilder sb = new StringBuilder(v.length());
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c != '\\') {
                sb.append(c);
            } else if (i + 1 < v.length()) {
                char e = v.charAt(++i);
                sb.append(switch (e) {
                    case ':' -> ';';
                    case 's' -> ' ';
                    case 'r' -> '\r';
                    case 'n' -> '\n';
                    default -> e;
                });
            }
        }
        return sb.toString();
    }
}
